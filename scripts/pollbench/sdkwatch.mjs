// The official JS SDK watcher of the poll benchmark (see main.go): polls
// getAgentTrace every INTERVAL ms, keeps every event by eventId and prints
// each new one as a JSON line, until run.finished.
// Usage: node sdkwatch.mjs URL JOB INTERVAL_MS  (NODE_PATH names the SDK's node_modules)
import { createRequire } from "node:module";
const require = createRequire(process.env.SDK_DIR + "/");
const { Firecrawl } = require("@mendable/firecrawl-js");
const [url, job, interval] = process.argv.slice(2);
const fc = new Firecrawl({ apiKey: "fc-bench", apiUrl: url });
const seen = new Map();
let done = false;
while (!done) {
  const t = await fc.getAgentTrace(job);
  for (const e of t.events) {
    if (seen.has(e.eventId)) continue;
    seen.set(e.eventId, e);
    process.stdout.write(JSON.stringify(e) + "\n");
    if (e.type === "run.finished") done = true;
  }
  if (!done) await new Promise((r) => setTimeout(r, Number(interval)));
}
