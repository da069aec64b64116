// `npu-advisor mcp` driven by the official MCP TypeScript SDK, on real data (docs/mcp.md, "Tests").
//   node tests/mcp/client.mjs NPU_ADVISOR_BIN      (from the repository root, ../shared/realdata beside it)
// 1. @modelcontextprotocol/sdk (protocol 2025-11-25, `initialize`): lists the tools and resources,
//    calls every tool on real inputs and checks the answers, and checks that paths outside the
//    allowed folders (and a symbolic link out of one) are refused.
// 2. @modelcontextprotocol/client pinned to 2026-07-28 (no handshake, server/discover): the same
//    server in the current revision (that client needs Node.js 20 or later: said and left out on 18).
// Exits 1 on the first failed check, naming it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = path.resolve(process.argv[2] ?? 'build/npu-advisor');
const realdata = '../shared/realdata';  // relative: the server resolves it from its working folder
const real = (rel) => path.join(realdata, rel);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'npu-advisor-mcp-client-'));
fs.symlinkSync(path.resolve('docs'), path.join(scratch, 'link_out'));  // inside an allowed folder, leads out

const serverParams = {
  command: bin,
  args: ['mcp', '--allow', realdata, '--allow', scratch],
  cwd: process.cwd(),
  stderr: 'pipe',
};
let serverLog = '';

function json(result, what) {
  assert.ok(!result.isError, `${what}: isError: ${result.content?.[0]?.text}`);
  assert.equal(result.content[0].type, 'text', `${what}: a text content`);
  return JSON.parse(result.content[0].text);
}

function refusal(result, what) {
  assert.equal(result.isError, true, `${what}: must be refused, got ${result.content?.[0]?.text?.slice(0, 200)}`);
  return result.content[0].text;
}

async function check(what, fn) {
  const t0 = Date.now();
  try {
    await fn();
  } catch (e) {
    console.error(`FAILED: ${what}: ${e.stack ?? e}`);
    if (serverLog) console.error(`server stderr:\n${serverLog}`);
    process.exitCode = 1;
    throw e;
  }
  console.log(`ok   ${what} (${Date.now() - t0} ms)`);
}

async function legacy() {
  const transport = new LegacyStdio(serverParams);
  transport.stderr.on('data', (d) => (serverLog += d));
  const client = new LegacyClient({ name: 'npu-advisor-test', version: '1.0.0' });
  const call = (name, args) => client.callTool({ name, arguments: args });

  await check('sdk 1.x: initialize (2025-11-25)', async () => {
    await client.connect(transport);
    assert.equal(client.getServerVersion().name, 'npu-advisor');
    assert.ok(client.getServerCapabilities().tools, 'tools capability');
    assert.ok(client.getServerCapabilities().resources, 'resources capability');
    assert.match(client.getInstructions(), /analyze/);
    await client.ping();
  });

  await check('tools/list: the six tools with input schemas', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(),
                     ['analyze', 'compare', 'explain_finding', 'facts', 'list_rules', 'whatif']);
    for (const t of tools) assert.equal(t.inputSchema.type, 'object', t.name);
  });

  const timeline = real('ascend_torch_npu/mstt_timeline_advice');
  let first;
  await check('analyze: a real torch_npu trace (mstt_timeline_advice)', async () => {
    const a = json(await call('analyze', { path: timeline }), 'analyze');
    assert.equal(a.input.kind, 'ascend run folder');
    assert.match(a.step_split, /compile/);
    assert.ok(a.findings.length >= 3, `${a.findings.length} findings`);
    a.findings.forEach((f, i) => {
      assert.equal(f.rank, i + 1);
      assert.ok(f.saving_ns >= 0 && typeof f.title === 'string' && f.title.length > 0, JSON.stringify(f));
    });
    assert.ok(a.findings.some((f) => f.rule === 'dispatch.op_compile'), 'the online compile finding');
    first = a.findings[0];
  });

  await check('explain_finding: evidence with file and byte offset, how the saving was computed', async () => {
    const e = json(await call('explain_finding', { path: timeline, finding: first.rule }), 'explain_finding');
    const f = e.findings[0];
    assert.equal(f.rule, first.rule);
    const located = f.evidence.filter((ev) => ev.file && (ev.byte !== undefined || ev.line !== undefined));
    assert.ok(located.length > 0, JSON.stringify(f.evidence).slice(0, 500));
    for (const ev of located) assert.ok(fs.existsSync(ev.file), `evidence file ${ev.file}`);
    assert.ok(f.how_the_saving_was_computed.formula.length > 0);
    assert.match(f.how_the_saving_was_computed.in_words, /per step/);
    const byRank = json(await call('explain_finding', { path: timeline, finding: 1 }), 'by rank');
    assert.equal(byRank.findings[0].rule, first.rule);
    assert.match(refusal(await call('explain_finding', { path: timeline, finding: 'no.such' }), 'unknown'),
                 /no finding/);
  });

  await check('facts: a value with its unit and meaning from the schema', async () => {
    const top = json(await call('facts', { path: timeline }), 'facts');
    assert.ok(top.keys.some((k) => k.key === 'steps' && k.meaning), 'the sections with their meaning');
    const step = json(await call('facts', { path: timeline, facts_path: '/steps/0/computing_ns' }), 'facts');
    assert.equal(step.unit, 'ns');
    assert.equal(step.schema_path, 'steps[].computing_ns');
    assert.ok(Number.isInteger(step.value) && step.value > 0, `${step.value}`);
    const dotted = json(await call('facts', { path: timeline, facts_path: 'steps[0].computing_ns' }), 'dotted');
    assert.equal(dotted.value, step.value);
    assert.match(refusal(await call('facts', { path: timeline, facts_path: '/nope' }), 'bad path'), /no key/);
  });

  await check('analyze: a SQLite export (msinsight_full_db) and a 2-rank cluster', async () => {
    const db = json(await call('analyze', { path: real('ascend_db/msinsight_full_db/msprof_0.db') }), 'db');
    assert.match(db.input.description, /msprof_0\.db/);
    const cluster = json(await call('analyze', { path: real('ascend_torch_npu/msinsight_pytorch_2rank/text') }),
                         'cluster');
    assert.match(JSON.stringify(cluster.input), /cluster/i);
  });

  const dataloader = real('kineto_h200/dataloader');
  const fixed = real('kineto_h200/dataloader_fixed');
  await check('compare: kineto_h200 dataloader -> dataloader_fixed (H200, the advice applied)', async () => {
    const c = json(await call('compare', { baseline: dataloader, new: fixed }), 'compare');
    const st = c.step_time;
    assert.ok(st, Object.keys(c).join(','));
    assert.ok(st.new.median_ns < st.base.median_ns && st.delta_ns < 0,
              `the fixed run is faster: ${JSON.stringify(st).slice(0, 300)}`);
    assert.ok(Array.isArray(c.why) && c.why.length > 0, 'contributors');
  });

  await check('whatif: the dataloader fix replayed on kineto_h200/dataloader', async () => {
    const w = json(await call('whatif', { path: dataloader, apply: ['dataloader'] }), 'whatif');
    assert.ok(w.available, JSON.stringify(w).slice(0, 300));
    assert.ok(w.result.saving_ns > 0, `saving ${w.result.saving_ns}`);
    assert.deepEqual(w.result.transforms, ['dataloader']);
  });

  await check('list_rules: ids, descriptions, options', async () => {
    const r = json(await call('list_rules', {}), 'list_rules');
    assert.ok(r.rules.length >= 20, `${r.rules.length} rules`);
    const hb = r.rules.find((x) => x.id === 'dispatch.host_bound');
    assert.ok(hb && hb.description.length > 0 && typeof hb.options === 'object');
    const one = json(await call('list_rules', { id: 'dispatch.host_bound' }), 'one rule');
    assert.equal(one.rules.length, 1);
    assert.ok(one.rules[0].description.length >= hb.description.length);
  });

  await check('confinement: paths outside the allowed folders are refused', async () => {
    for (const p of ['/etc/passwd', '/etc', path.resolve('README.md'), `${realdata}/../../README.md`,
                     '/no/such/folder']) {
      assert.match(refusal(await call('analyze', { path: p }), p), /outside the folders this server may read/);
    }
    assert.match(refusal(await call('facts', { path: path.join(scratch, 'link_out') }), 'link'), /outside/);
    assert.match(refusal(await call('analyze', { path: scratch }), 'a folder with a link out'), /symbolic link/);
    assert.match(refusal(await call('compare', { baseline: timeline, new: '/etc' }), 'compare'), /outside/);
    assert.match(refusal(await call('analyze', {}), 'no path'), /missing/);
  });

  await check('protocol errors: unknown tool (-32602), unknown resource', async () => {
    await assert.rejects(call('no_such_tool', {}), (e) => e.code === -32602);
    await assert.rejects(client.readResource({ uri: 'npu-advisor://docs/nope.md' }), (e) => e.code === -32002);
  });

  await check('resources: the facts schema and the docs', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const u of ['npu-advisor://docs/mcp.md', 'npu-advisor://docs/facts.md',
                     'npu-advisor://facts-schema/steps.json'])
      assert.ok(uris.includes(u), u);
    const schema = await client.readResource({ uri: 'npu-advisor://facts-schema/steps.json' });
    assert.equal(JSON.parse(schema.contents[0].text).section, 'steps');
    const doc = await client.readResource({ uri: 'npu-advisor://docs/mcp.md' });
    assert.match(doc.contents[0].text, /--allow/);
  });

  await client.close();
}

async function modern() {
  if (Number(process.versions.node.split('.')[0]) < 20) {
    console.log(`skip 2026-07-28: @modelcontextprotocol/client needs Node.js 20 or later, this is ${process.version}`);
    return;
  }
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport(serverParams);
  const client = new Client({ name: 'npu-advisor-test', version: '2.0.0' },
                            { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await check('client 2.x: 2026-07-28 (server/discover, no handshake)', async () => {
    await client.connect(transport);
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.ok(client.getDiscoverResult().supportedVersions.includes('2026-07-28'));
  });
  await check('2026-07-28: tools, a Kineto analysis, resources', async () => {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 6);
    const r = await client.callTool({ name: 'analyze', arguments: { path: real('kineto_h200/sync') } });
    const a = json(r, 'analyze');
    assert.ok(a.findings.length > 0);
    assert.deepEqual(r.structuredContent.input, a.input);
    const refused = await client.callTool({ name: 'analyze', arguments: { path: '/etc' } });
    assert.match(refusal(refused, '/etc'), /outside/);
    const { resources } = await client.listResources();
    assert.ok(resources.length > 10);
  });
  await client.close();
}

try {
  await legacy();
  await modern();
  console.log('all checks passed');
} catch {
  process.exitCode = 1;
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
