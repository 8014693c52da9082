// Drives our server over stdio with the TypeScript SDK's Client (tests/mcp_server/server/test_output_schemas_in_ts_sdk.py).
// The Client compiles every tool's outputSchema with ajv at tools/list and throws from callTool
// when an answer's structuredContent does not match it: each call's outcome is printed as JSON.
// Usage: node ts_sdk_client.cjs <bench/peers dir> <plan.json>; plan: {command, args, env, calls: [[tool, args]]}
'use strict';
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');

const peers = createRequire(path.join(path.resolve(process.argv[2]), 'package.json'));
const { Client } = peers('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = peers('@modelcontextprotocol/sdk/client/stdio.js');
const plan = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));

function rejected(error) {
  const text = String(error && error.message);
  return /output schema|validate structured content/i.test(text);
}

async function main() {
  const transport = new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, stderr: 'ignore' });
  const client = new Client({ name: 'ts-sdk-validation', version: '1' });
  await client.connect(transport);
  const listed = await client.listTools();
  const out = { tools: listed.tools.length, withValidator: [], calls: [] };
  for (const tool of listed.tools) if (client.getToolOutputValidator(tool.name)) out.withValidator.push(tool.name);
  for (const [name, args] of plan.calls) {
    const call = { tool: name, action: args.action || null };
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
      const sc = result.structuredContent || {};
      call.status = sc.status || null;
      call.code = sc.code || null;
      call.isError = Boolean(result.isError);
      if (sc.code === 'DIALOG_OPEN') {
        await client.callTool({ name: 'browser_session', arguments: { action: 'handle_dialog', dialog_action: 'dismiss' } });
      }
    } catch (error) {
      call.status = rejected(error) ? 'rejected' : 'threw';
      call.error = String(error && error.message).slice(0, 2000);
    }
    out.calls.push(call);
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack) + '\n');
  process.exit(1);
});
