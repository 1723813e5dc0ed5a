// An Allure 3 plugin (registered in ../allurerc.mjs, after "awesome"): the single-file report opens on the
// absa-checks summary (verdict, tables, pictures) instead of the tree of every case, and the command says
// where the report is. Allure 3 has no landing-page option; its reports route on the URL's hash, so a
// report opened without one is sent to the summary's page (a link with a hash still opens where it points).
//
// It also takes out Allure's Google Analytics: the awesome report's page loads
// https://www.googletagmanager.com/gtag/js and sends the report's id and Allure's version to Google each time
// it is opened. Allure 3 (3.18.0, package-lock.json) has no option or environment variable to turn it off
// (plugin-awesome's generator passes `analyticsEnable: true` to its template; Allure 2's ALLURE_NO_ANALYTICS is
// not read: allure-framework/allure3#476), so the two script tags are removed from every page written here, and
// a page that still loads a script from another host stops the build with one line (tests/test_offline_pages.py
// opens every page with the network blocked).
import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const SUMMARY = "absa-checks::absa-checks summary"; // the fullName absa_checks/reports/allure_support.py gives it
// The awesome template's analytics: the loader of gtag.js, then the inline script that configures it.
const ANALYTICS = /<script[^>]*\ssrc="https:\/\/www\.googletagmanager\.com\/[^"]*"[^>]*>\s*<\/script>\s*<script>(?:(?!<\/script>)[\s\S])*?\bgtag\((?:(?!<\/script>)[\s\S])*<\/script>/g;
const REMOTE_SCRIPT = /<script[^>]*\ssrc="((?:https?:)?\/\/[^"]*)"/i;

/** The page without Allure's analytics, or the one line saying which other host it still loads a script from. */
export function withoutAnalytics(html, page) {
  const stripped = html.replace(ANALYTICS, "");
  const remote = stripped.match(REMOTE_SCRIPT);
  if (remote) {
    return { error: `absa-checks: ${page} would load ${remote[1]} when opened; allure/absa-checks-landing.mjs ` +
      "removes only Allure's analytics (a new Allure version's template?): strip that script there too " +
      "(the page was removed)" };
  }
  return { html: stripped };
}

export default class AbsaChecksLanding {
  constructor(options = {}) {
    this.options = options;
  }

  async done(context, store) {
    // At this point each report plugin's files are in <output>/<plugin id>/; Allure moves a lone one up
    // to <output> afterwards, so that is where the user finds it.
    const output = resolve(context.output);
    const folders = (await readdir(output, { withFileTypes: true })).filter((entry) => entry.isDirectory());
    const pages = [];
    for (const folder of folders) {
      const page = join(output, folder.name, "index.html");
      if ((await readdir(join(output, folder.name))).includes("index.html")) {
        pages.push({ page, shown: folders.length === 1 ? join(output, "index.html") : page });
      }
    }
    const summary = (await store.allTestResults()).find((result) => result.fullName === SUMMARY);
    for (const { page, shown } of pages) {
      const { html: offline, error } = withoutAnalytics(await readFile(page, "utf8"), shown);
      if (error) {
        // Allure's CLI turns a thrown error into "Check logs for more details": say it here, in one line, and
        // leave no page that would send a request home.
        await rm(page);
        console.error(error);
        process.exit(1);
      }
      if (!summary) {
        await writeFile(page, offline, "utf8");
        console.log(`absa-checks: report at ${shown} (these results have no absa-checks summary)`);
        continue;
      }
      const target = `#/${summary.id}`;
      const redirect = `<script>if(!location.hash||location.hash==="#"||location.hash==="#/")` +
        `location.replace(${JSON.stringify(target)});</script>`;
      await writeFile(page, offline.replace("<head>", `<head>${redirect}`), "utf8");
      // A folder report (allure/multi-file.mjs) loads its data/ files, which a browser refuses to fetch from a
      // file:// page ("Failed to fetch"): it must be served, so the command that serves it is what we print.
      const folder = join(page, "..");
      const served = await stat(join(folder, "data")).then((found) => found.isDirectory(), () => false);
      if (served) {
        const named = relative(process.cwd(), output) || ".";
        const openable = named.startsWith("..") ? output : named;
        console.log(`absa-checks: report at ${shown}; serve it to read it (it opens on the absa-checks summary): ` +
          `npx allure open ${openable.includes(" ") ? JSON.stringify(openable) : openable}`);
      } else {
        console.log(`absa-checks: report at ${shown}; it opens on the absa-checks summary (${pathToFileURL(shown)}${target})`);
      }
    }
  }
}
