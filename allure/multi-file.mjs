// The same report as ../allurerc.mjs, as a folder of files instead of one HTML file: for runs over the
// full data (tens of thousands of cases), where one file is 137 MB (docs/performance.md). Serve it to read it:
//     npx allure generate allure-results --config allure/multi-file.mjs && npx allure open allure-report
import base from "../allurerc.mjs";

const awesome = base.plugins.awesome;

export default {
  ...base,
  plugins: { ...base.plugins, awesome: { ...awesome, options: { ...awesome.options, singleFile: false } } },
};
