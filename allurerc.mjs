// Allure 3 configuration for absa-checks: one self-contained HTML file (allure-report/index.html).
// Build it after `pytest suites/ --alluredir allure-results`:  npx allure generate allure-results
import { defineConfig } from "allure";

export default defineConfig({
  name: "absa-checks",
  output: "./allure-report",
  plugins: {
    awesome: {
      options: {
        singleFile: true,
        reportName: "absa-checks",
        groupBy: ["epic", "feature", "story"],
      },
    },
  },
});
