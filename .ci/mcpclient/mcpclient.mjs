// A real MCP client, the official TypeScript SDK, against firewatch mcp over
// stdio: it lists the tools, calls list_runs, get_run, get_events to the
// end and wait_for_run on a live run, and checks what it got.
//
//   node mcpclient.mjs [--expect-actions | --expect-no-actions] -- COMMAND ARGS...
//
// COMMAND ARGS start the server (firewatch mcp, or ssh -p PORT HUB mcp);
// FIRECRAWL_API_URL / FIRECRAWL_API_KEY reach it through the environment.
// It prints one line per check and "N passed, N failed" at the end.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const opts = argv.slice(0, sep);
const [command, ...args] = argv.slice(sep + 1);
let passed = 0, failed = 0;
const check = (ok, what) => {
  if (ok) { passed++; console.log(`ok   ${what}`); } else { failed++; console.log(`FAIL ${what}`); }
};

const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpclient-check", version: "1.0.0" });
await client.connect(transport);

const call = async (name, a) => {
  const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 300000 });
  if (r.isError) throw new Error(`${name}: ${r.content?.map((c) => c.text).join(" ")}`);
  return r.structuredContent;
};

try {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  console.log(`tools: ${names.join(", ")}`);
  for (const n of ["list_runs", "get_run", "get_tree", "get_events", "get_tool_call", "get_artifact", "get_result", "wait_for_run", "compare_runs", "cost", "report"]) {
    const t = tools.find((x) => x.name === n);
    check(t && t.inputSchema && t.outputSchema && t.annotations?.readOnlyHint === true, `${n}: offered, typed, read-only`);
  }
  if (opts.includes("--expect-actions")) check(names.includes("cancel_run") && names.includes("start_run"), "acting tools offered");
  if (opts.includes("--expect-no-actions")) check(!names.includes("cancel_run") && !names.includes("start_run"), "no acting tools");

  const list = await call("list_runs", { limit: 20 });
  check(list.runs.length > 0, `list_runs: ${list.runs.length} runs`);
  const live = list.runs.find((r) => r.status === "processing") ?? list.runs[0];
  const run = await call("get_run", { run: live.id });
  check(run.id === live.id && typeof run.state === "string", `get_run ${run.id}: ${run.state}, ${run.agents.length} agents`);

  const wait = await call("wait_for_run", { run: live.id, until: "finished", timeout_seconds: 240 });
  check(wait.reason === "finished" && wait.state === "finished", `wait_for_run: ${wait.reason} after ${wait.waited_ms} ms, ${wait.new_events} new events`);

  const seen = new Set();
  let cursor, pages = 0, total = 0, dup = 0, largest = 0;
  for (;;) {
    const page = await call("get_events", { run: live.id, limit: 200, ...(cursor ? { cursor } : {}) });
    pages++;
    largest = Math.max(largest, JSON.stringify(page).length);
    for (const e of page.events) { if (seen.has(e.seq)) dup++; seen.add(e.seq); }
    total = page.total;
    if (!page.more) break;
    cursor = page.next_cursor;
    if (pages > 1000) break;
  }
  check(dup === 0 && seen.size === total && total > 0, `get_events: ${seen.size} of ${total} events in ${pages} pages, each once, the largest ${largest} characters`);
  check(largest <= 20000, "get_events: every page within the default budget");
} catch (e) {
  check(false, String(e?.message ?? e));
} finally {
  await client.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
