// ajv compile time of each tool's outputSchema, as the TypeScript MCP SDK's client does it.
//
// Client.listTools calls AjvJsonSchemaValidator.getValidator(tool.outputSchema) for every
// tool, on the Ajv instance each Client creates (strict: false, validateFormats: true,
// validateSchema: false, allErrors: true, ajv-formats). This script uses that class from the
// installed SDK itself, a fresh instance per run (as a fresh client session has), and times
// each getValidator call.
//
//   node bench/schema_compile.mjs <peersDir> <runs>  < tools.json   ({"tools": [...]})
//
// Prints JSON: {sdkVersion, runs: [{total, perTool: {name: ms}}]} (ms, the first run included).

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [peersDir, runsArg] = process.argv.slice(2);
const require = createRequire(join(peersDir, "package.json"));
const { AjvJsonSchemaValidator } = require("@modelcontextprotocol/sdk/validation/ajv");
const sdkVersion = JSON.parse(
  readFileSync(join(peersDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"), "utf8"),
).version;

const tools = JSON.parse(readFileSync(0, "utf8")).tools.filter((t) => t.outputSchema);
const runs = [];
for (let r = 0; r < Number(runsArg || 5); r++) {
  const validator = new AjvJsonSchemaValidator();
  const perTool = {};
  let total = 0;
  for (const tool of tools) {
    // A copy: ajv keeps compiled schemas by identity, and a fresh session parses a fresh object.
    const schema = structuredClone(tool.outputSchema);
    const t = performance.now();
    validator.getValidator(schema);
    const ms = performance.now() - t;
    perTool[tool.name] = ms;
    total += ms;
  }
  runs.push({ total, perTool });
}
process.stdout.write(JSON.stringify({ sdkVersion, runs }) + "\n");
