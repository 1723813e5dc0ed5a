// An Allure 3 plugin (registered in ../allurerc.mjs, after "awesome"): the single-file report opens on the
// absa-checks summary (verdict, tables, pictures) instead of the tree of every case, and the command says
// where the report is. Allure 3 has no landing-page option; its reports route on the URL's hash, so a
// report opened without one is sent to the summary's page (a link with a hash still opens where it points).
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const SUMMARY = "absa-checks::absa-checks summary"; // the fullName absa_checks/reports/allure_support.py gives it

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
      if (!summary) {
        console.log(`absa-checks: report at ${shown} (these results have no absa-checks summary)`);
        continue;
      }
      const target = `#/${summary.id}`;
      const redirect = `<script>if(!location.hash||location.hash==="#"||location.hash==="#/")` +
        `location.replace(${JSON.stringify(target)});</script>`;
      await writeFile(page, (await readFile(page, "utf8")).replace("<head>", `<head>${redirect}`), "utf8");
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
