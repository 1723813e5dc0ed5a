// Allure 3 configuration for absa-checks: one self-contained HTML file (allure-report/index.html) that opens
// on the absa-checks summary. Build it after `pytest suites/ --alluredir allure-results`:
//     npx allure generate allure-results
import { fileURLToPath } from "node:url";
import { defineConfig } from "allure";

export default defineConfig({
  name: "absa-checks",
  output: "./allure-report",
  // Labels allure-pytest adds to every result that say nothing here (one host, one framework) or repeat
  // the source/strategy grouping (markers as tags): hidden, they cost a third of the report's size.
  hideLabels: ["host", "thread", "framework", "language", "package", "parentSuite", "suite", "subSuite", "tag"],
  plugins: {
    awesome: {
      options: {
        singleFile: true,
        reportName: "absa-checks",
        groupBy: ["epic", "feature", "story"],
      },
    },
    "absa-checks-landing": {
      import: fileURLToPath(new URL("./allure/absa-checks-landing.mjs", import.meta.url)),
    },
  },
});
