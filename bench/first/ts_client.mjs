// The first answer through the TypeScript MCP SDK client (@modelcontextprotocol/sdk, stdio).
//
// Why: most agent hosts are Node programs on this SDK, and it pays for outputSchemas at
// tools/list (Client.listTools compiles every tool's outputSchema with ajv, through its
// AjvJsonSchemaValidator), where the Python SDK pays at the first tools/call. This script
// times each step as such a host meets it: connect (spawn + initialize), listTools
// (request, answer, ajv compile), the first call(s) (request, answer, validation).
//
//   node bench/first/ts_client.mjs '<json config>'
//   config: {peersDir, command, args, env, cwd, calls: [[tool, args], ...], starts, stderrLog, timeoutMs}
//
// Prints one JSON object on stdout: {sdkVersion, importMs, starts: [{...ms per step}]}.
// The SDK is loaded from peersDir/node_modules with its default validator configuration;
// the validator is only wrapped to time getValidator (compile) and each validation.

import { createRequire } from "node:module";
import { openSync, closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const cfg = JSON.parse(process.argv[2]);
const require = createRequire(join(cfg.peersDir, "package.json"));

const t0 = performance.now();
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { AjvJsonSchemaValidator } = require("@modelcontextprotocol/sdk/validation/ajv");
const importMs = performance.now() - t0;
const sdkVersion = JSON.parse(
  readFileSync(join(cfg.peersDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"), "utf8"),
).version;

/** The SDK's own validator (default ajv instance), timed. */
class TimedValidator {
  constructor() {
    const t = performance.now();
    this.inner = new AjvJsonSchemaValidator();
    this.instanceMs = performance.now() - t;
    this.compileMs = 0;
    this.compiled = 0;
    this.validateMs = 0;
  }
  getValidator(schema) {
    const t = performance.now();
    const check = this.inner.getValidator(schema);
    this.compileMs += performance.now() - t;
    this.compiled += 1;
    return (input) => {
      const s = performance.now();
      try {
        return check(input);
      } finally {
        this.validateMs += performance.now() - s;
      }
    };
  }
}

const round = (x) => Math.round(x * 10) / 10;

async function oneStart(i) {
  const errFd = openSync(`${cfg.stderrLog}.${i}`, "w");
  const validator = new TimedValidator();
  const client = new Client({ name: "bench-ts", version: "0" }, { jsonSchemaValidator: validator });
  const transport = new StdioClientTransport({
    command: cfg.command,
    args: cfg.args,
    env: cfg.env,
    cwd: cfg.cwd,
    stderr: errFd,
  });
  const out = { ajvInstanceMs: round(validator.instanceMs) };
  const opts = { timeout: cfg.timeoutMs ?? 60000 };
  try {
    const start = performance.now();
    await client.connect(transport, opts);
    const connected = performance.now();
    const listed = await client.listTools(undefined, opts);
    const afterList = performance.now();
    out.compileMs = round(validator.compileMs);
    out.schemasCompiled = validator.compiled;
    let result = null;
    for (const [tool, args] of cfg.calls) {
      result = await client.callTool({ name: tool, arguments: args }, undefined, opts);
    }
    const afterCall = performance.now();
    Object.assign(out, {
      connectMs: round(connected - start),
      toolsListMs: round(afterList - connected),
      firstCallMs: round(afterCall - afterList),
      toolsListAndCallMs: round(afterCall - connected),
      totalMs: round(afterCall - start),
      validateMs: round(validator.validateMs),
      tools: listed.tools.length,
      isError: Boolean(result?.isError),
      structuredKeys: Object.keys(result?.structuredContent ?? {}),
    });
  } catch (err) {
    out.error = String(err?.stack ?? err).slice(0, 500);
  } finally {
    try {
      await client.close();
    } catch {
      // the process is stopped by the harness if it lingers
    }
    closeSync(errFd);
  }
  return out;
}

const starts = [];
for (let i = 0; i < (cfg.starts ?? 1); i++) {
  starts.push(await oneStart(i));
}
process.stdout.write(JSON.stringify({ sdkVersion, importMs: round(importMs), starts }) + "\n");
process.exit(0);
