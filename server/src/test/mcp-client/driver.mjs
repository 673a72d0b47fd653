// A line-oriented driver over the official MCP TypeScript SDK client, for the Java ITs
// (McpTypeScriptClientIT). It connects over one transport and then answers one JSON line on stdout for
// every JSON line of commands on stdin:
//   {"op":"connect"}                          -> {"ok":true,"serverInfo":{...},"protocolVersion":"..."}
//   {"op":"listTools"}                        -> {"ok":true,"tools":[...],"bytes":N} (N: the tools/list result as
//                                               JSON, UTF-8 bytes: what a model's context receives)
//   {"op":"call","name":"…","arguments":{…}}  -> {"ok":true,"result":{content,structuredContent,isError}}
//   {"op":"callWithProgress","name":"…","arguments":{…}} -> as call, plus "progress":[...]: the call asks for
//                                               progress (_meta.progressToken); each notification is also written at
//                                               once as its own line {"event":"progress","progress":{progress,total,message}}
//   {"op":"timeCalls","name":"…","arguments":{…},"count":N} -> {"ok":true,"millis":[...]} (each call's wall time)
//   {"op":"burst","name":"…","arguments":{…},"count":N} -> {"ok":true,"results":[...]} (N calls at once; each
//                                               {"ok":true,"isError","structured"} or a failure as below)
//   {"op":"close"}                            -> {"ok":true}, then exits
// A failure answers {"ok":false,"error":{"name","code","message"}} (code: the JSON-RPC error code, or the
// HTTP status for a transport error). Settings come from the environment:
//   MCP_TRANSPORT=http  MCP_URL, MCP_TOKEN (omit MCP_TOKEN to send no Authorization header)
//   MCP_TRANSPORT=stdio MCP_COMMAND (a JSON array: the command and its arguments), MCP_ENV (a JSON object
//                       added to the child's environment)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import readline from 'node:readline';
import { performance } from 'node:perf_hooks';

const client = new Client({ name: 'roboco-sandbox-it', version: '1.0.0' });
let transport;

function makeTransport() {
  if (process.env.MCP_TRANSPORT === 'stdio') {
    const [command, ...args] = JSON.parse(process.env.MCP_COMMAND);
    const env = { ...process.env, ...JSON.parse(process.env.MCP_ENV || '{}') };
    return new StdioClientTransport({ command, args, env, stderr: 'inherit' });
  }
  const headers = process.env.MCP_TOKEN ? { Authorization: `Bearer ${process.env.MCP_TOKEN}` } : {};
  return new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), { requestInit: { headers } });
}

function failure(e) {
  return { ok: false, error: { name: e?.constructor?.name ?? 'Error', code: e?.code ?? null, message: String(e?.message ?? e) } };
}

async function handle(command) {
  switch (command.op) {
    case 'connect':
      transport = makeTransport();
      await client.connect(transport);
      return { ok: true, serverInfo: client.getServerVersion(), latest: LATEST_PROTOCOL_VERSION,
               protocolVersion: transport.protocolVersion ?? null, instructions: client.getInstructions() ?? null };
    case 'listTools': {
      const listed = await client.listTools();
      return { ok: true, tools: listed.tools, bytes: Buffer.byteLength(JSON.stringify(listed), 'utf8') };
    }
    case 'call':
      return { ok: true, result: await client.callTool({ name: command.name, arguments: command.arguments ?? {} }) };
    case 'callWithProgress': {
      const progress = [];
      const result = await client.callTool({ name: command.name, arguments: command.arguments ?? {} }, undefined, {
        timeout: 600000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          progress.push(p);
          process.stdout.write(JSON.stringify({ event: 'progress', progress: p }) + '\n');
        },
      });
      return { ok: true, result, progress };
    }
    case 'timeCalls': {
      const millis = [];
      for (let i = 0; i < command.count; i++) {
        const t0 = performance.now();
        const result = await client.callTool({ name: command.name, arguments: command.arguments ?? {} });
        millis.push(performance.now() - t0);
        if (result.isError) {
          return { ok: false, error: { name: 'ToolError', code: null, message: JSON.stringify(result.content) } };
        }
      }
      return { ok: true, millis };
    }
    case 'burst': {
      const calls = Array.from({ length: command.count }, () =>
        client.callTool({ name: command.name, arguments: command.arguments ?? {} })
          .then((r) => ({ ok: true, isError: !!r.isError, structured: r.structuredContent ?? null }))
          .catch((e) => failure(e)));
      return { ok: true, results: await Promise.all(calls) };
    }
    case 'close':
      await client.close();
      return { ok: true };
    default:
      return { ok: false, error: { name: 'BadCommand', code: null, message: `unknown op ${command.op}` } };
  }
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  let command = {};
  try {
    command = JSON.parse(line);
    answer = await handle(command);
  } catch (e) {
    answer = failure(e);
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
  if (command.op === 'close') break;
}
process.exit(0);
