"""No page the tool writes or serves, and no command that builds one, contacts a host the user did not configure.

Every HTML the tool makes is opened in headless Chromium with the network blocked (tests/offline_browser.py):
the single-file Allure report, the folder report (and each of its attachment pages) served on 127.0.0.1, the
review page served by `absa-checks review`. Each must render and request nothing but itself (file:, data:,
blob:, or the one 127.0.0.1 origin serving it). The Markdown summary's pictures are PNG files beside it, and the
JSON report is data: nothing there can make a request. `npx allure generate` itself runs with every outgoing
connection and name lookup refused and recorded.

Allure 3 (3.18.0) puts Google Analytics in its report page with no option to turn it off; the plugin
allure/absa-checks-landing.mjs takes it out.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from offline_browser import CHROMIUM, leaving, open_offline, require
from reports.test_allure_support import ALLURE, allure_run, generate, read_results
from review_server import make_candidates, start, stop

from conftest import REPO, REQUIRE_EXTRAS, needs_extra

NODE = shutil.which("node")
NO_CHROMIUM = "no Chromium to open the pages with the network blocked: apt-get install chromium"
NO_ALLURE = "Allure 3 is not installed: run `npm ci` in the repository (Node >= 20.19); see the README"

# Preloaded into a Node process (NODE_OPTIONS=--require): every outgoing TCP connection (http, https, fetch,
# WebSocket), name lookup and UDP datagram is written to $ABSA_NETWORK_RECORD and refused; local sockets pass.
NETWORK_RECORDER = r"""
const fs = require("node:fs");
const net = require("node:net");
const dns = require("node:dns");
const dgram = require("node:dgram");
function refuse(what) {
  fs.appendFileSync(process.env.ABSA_NETWORK_RECORD, `${what}\n`);
  throw new Error(`no network in this test (${what})`);
}
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  const path = typeof options === "object" && options !== null ? options.path
    : typeof options === "string" && !/^\d+$/.test(options) ? options : undefined;
  if (path) return connect.apply(this, args);
  const where = typeof options === "object" && options !== null ? { host: options.host, port: options.port } : args.slice(0, 2);
  return refuse(`connect ${JSON.stringify(where)}`);
};
for (const name of ["lookup", "lookupService", "resolve", "resolve4", "resolve6", "resolveAny"]) {
  dns[name] = (...args) => refuse(`dns.${name} ${args[0]}`);
  dns.promises[name] = async (...args) => refuse(`dns.promises.${name} ${args[0]}`);
}
dgram.Socket.prototype.send = function () { return refuse("udp send"); };
"""

# An Allure plugin run between "awesome" and ours: it adds a script from another host to the report's page, as a
# new Allure version's template might.
REMOTE_SCRIPT_PLUGIN = """
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
export default class AddsARemoteScript {
  async done(context) {
    const page = join(resolve(context.output), "awesome", "index.html");
    const text = await readFile(page, "utf8");
    await writeFile(page, text.replace("</body>", '<script src="https://cdn.example.com/track.js"></script></body>'));
  }
}
"""


def needs_browser() -> None:
    require(CHROMIUM is not None, NO_CHROMIUM)


def needs_allure() -> None:
    require(ALLURE.exists() and NODE is not None, NO_ALLURE)


def rendered(dom: str) -> str:
    return html.unescape(dom)  # the report's descriptions render in iframes whose srcdoc the dump escapes


@pytest.mark.slow
@needs_extra("allure")
def test_the_single_file_allure_report_opens_offline(tmp_path, run):
    needs_allure()
    needs_browser()
    report = tmp_path / "allure-report"
    generate(allure_run(tmp_path, run), report)
    index = report / "index.html"
    by_id = json.loads((report / "test-results.json").read_text())["byId"]
    failed_id = next(i for i, r in by_id.items() if r["status"] == "failed" and "'room'" in r["name"])
    # where it lands (the summary: tables, pictures), and a failed case (its original-vs-variant attachment)
    for url, shown, profile in ((index.as_uri(), "fail rate [95% CI]", "summary"),
                                (f"{index.as_uri()}#/{failed_id}", "The room is quiet", "failed")):
        dom, requests = open_offline(url, tmp_path / profile)
        assert shown in rendered(dom), f"{url} did not render: {dom[-1000:]}"
        assert leaving(requests) == [], f"{url} sent requests off the machine: {leaving(requests)}"
    assert "googletagmanager" not in index.read_text(encoding="utf-8")  # nor left a loader for later


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


@pytest.mark.slow
@needs_extra("allure")
def test_the_folder_allure_report_and_its_attachment_pages_open_offline_when_served(tmp_path, run):
    needs_allure()
    needs_browser()
    report = tmp_path / "allure-report"
    generate(allure_run(tmp_path, run), report, "--config", str(REPO / "allure" / "multi-file.mjs"))
    pages = sorted(report.rglob("*.html"))
    assert report / "index.html" in pages and len(pages) > 1  # the report and its HTML attachments
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(report)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for number, page in enumerate(pages):
            url = f"{origin}/{page.relative_to(report).as_posix()}"
            dom, requests = open_offline(url, tmp_path / f"page-{number}")
            # the report renders its summary; an attachment page (a table, a diff) is what the file holds
            shown = "fail rate [95% CI]" if page.name == "index.html" else "<table>"
            assert shown in rendered(dom), f"{url} did not render: {dom[-1000:]}"
            assert leaving(requests, origin) == [], f"{url} sent requests off the machine: {leaving(requests, origin)}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_review_page_opens_offline(tmp_path):
    needs_browser()
    proc, url = start(make_candidates(tmp_path), "--reviewer", "ann")
    try:
        dom, requests = open_offline(url, tmp_path / "review")
    finally:
        assert stop(proc) == (0, "")
    assert 'class="candidate current"' in dom or "candidate current" in dom, dom[-1000:]
    assert any(r.startswith(url + "api/") for r in requests), requests  # it asked its server for the candidates
    assert leaving(requests, url.rstrip("/")) == [], f"the review page sent requests off the machine: " \
                                                     f"{leaving(requests, url.rstrip('/'))}"


@needs_extra("allure")
def test_allure_generate_itself_contacts_no_host(tmp_path, run):
    needs_allure()
    recorder = tmp_path / "record-network.cjs"
    recorder.write_text(NETWORK_RECORDER, encoding="utf-8")
    record = tmp_path / "network.txt"
    env = {**os.environ, "NODE_OPTIONS": f"--require {recorder}", "ABSA_NETWORK_RECORD": str(record)}
    # the recorder sees a request when one is made (fetch and https both)
    probe = subprocess.run([NODE or "node", "-e", 'fetch("http://example.com/").catch(() => {}); '
                            'require("https").get("https://192.0.2.1/").on("error", () => {})'],
                           env=env, capture_output=True, text=True, timeout=60)
    assert sorted(record.read_text().splitlines()) == ['connect {"host":"192.0.2.1","port":443}',
                                                       'connect {"host":"example.com","port":80}'], probe.stderr
    record.unlink()
    results = allure_run(tmp_path, run)
    built = subprocess.run([str(ALLURE), "generate", str(results), "--output", str(tmp_path / "allure-report")],
                           cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert built.returncode == 0, built.stderr[-2000:]
    assert "absa-checks: report at" in built.stdout
    assert not record.exists(), f"allure generate contacted: {record.read_text()}"


@needs_extra("allure")
def test_a_report_page_that_would_still_load_a_remote_script_stops_the_build_with_one_line(tmp_path, run):
    needs_allure()
    results = allure_run(tmp_path, run)
    assert any(r["name"] == "absa-checks summary" for r in read_results(results))
    (tmp_path / "adds-a-remote-script.mjs").write_text(REMOTE_SCRIPT_PLUGIN, encoding="utf-8")
    config = tmp_path / "allurerc.mjs"
    config.write_text(f"""import base from {json.dumps((REPO / "allurerc.mjs").as_uri())};
export default {{
  ...base,
  plugins: {{
    awesome: base.plugins.awesome,
    "adds-a-remote-script": {{ import: {json.dumps(str(tmp_path / "adds-a-remote-script.mjs"))} }},
    "absa-checks-landing": base.plugins["absa-checks-landing"],
  }},
}};
""", encoding="utf-8")
    output = tmp_path / "allure-report"
    built = subprocess.run([str(ALLURE), "generate", str(results), "--output", str(output), "--config", str(config)],
                           cwd=REPO, capture_output=True, text=True, timeout=300)
    assert built.returncode == 1
    page = output / "index.html"
    assert built.stderr.splitlines() == [
        f"absa-checks: {page} would load https://cdn.example.com/track.js when opened; "
        "allure/absa-checks-landing.mjs removes only Allure's analytics (a new Allure version's template?): "
        "strip that script there too (the page was removed)"], built.stderr
    assert not list(output.rglob("index.html"))  # no page that would send a request home is left


def test_without_chromium_or_allure_the_check_is_skipped_naming_it_and_in_ci_it_fails(monkeypatch):
    """CI installs Chromium and Allure and sets ABSA_REQUIRE_EXTRAS=1: there a missing one fails the check
    instead of skipping it unseen."""
    monkeypatch.delenv(REQUIRE_EXTRAS, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        require(False, NO_CHROMIUM)
    monkeypatch.setenv(REQUIRE_EXTRAS, "1")
    with pytest.raises(pytest.fail.Exception, match=f"apt-get install chromium .{REQUIRE_EXTRAS}=1"):
        require(False, NO_CHROMIUM)
    require(True, NO_CHROMIUM)  # found: nothing to say
