// One agent session through the TypeScript SDK's Client (as Claude Code drives a server), over stdio or
// streamable HTTP; prints what the session saw as JSON (tests/e2e/test_both_protocol_eras.py).
// Usage: node ts_sdk_session.cjs <bench/peers dir> <plan.json>
// plan: {transport: "stdio", command, args, env} | {transport: "http", url, token}; calls: [[tool, args]]
'use strict';
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');

const peers = createRequire(path.join(path.resolve(process.argv[2]), 'package.json'));
const { Client } = peers('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = peers('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = peers('@modelcontextprotocol/sdk/client/streamableHttp.js');
const plan = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));

function transportOf(plan) {
  if (plan.transport === 'http') {
    const headers = { Authorization: `Bearer ${plan.token}` };
    return new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
  }
  return new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, stderr: 'ignore' });
}

async function main() {
  const transport = transportOf(plan);
  let negotiated = null;
  const setVersion = transport.setProtocolVersion && transport.setProtocolVersion.bind(transport);
  transport.setProtocolVersion = (version) => {
    negotiated = version;
    if (setVersion) setVersion(version);
  };
  const client = new Client({ name: 'ts-sdk-session', version: '1' });
  await client.connect(transport);
  const listed = await client.listTools();
  const out = {
    protocolVersion: negotiated,
    capabilities: client.getServerCapabilities(),
    tools: listed.tools.map((t) => t.name),
    calls: [],
  };
  for (const [name, args] of plan.calls) {
    let progress = 0;
    const result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: 120000,
      onprogress: () => { progress += 1; },
    });
    const sc = result.structuredContent || {};
    out.calls.push({
      tool: name,
      action: args.action || null,
      isError: Boolean(result.isError),
      status: sc.status || null,
      code: sc.code || null,
      text: (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n').slice(0, 400),
      progress,
    });
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack) + '\n');
  process.exit(1);
});
