// The /crawler page refreshes itself: fetch /crawler.json every few seconds and re-render
// the status line and the three tables, with the markup crawler.html renders first.
// Everything goes in through textContent and attributes, never innerHTML, so a title or a
// reason from a source site cannot inject markup. A signed-out session is sent to sign in.
(function () {
  "use strict";
  const root = document.getElementById("crawler");
  if (!root) return;
  const refreshMs = Math.max(250, Number(root.dataset.refreshMs) || 3000);

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    for (const child of children || []) {
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function td(children, attrs) {
    return el("td", attrs, children);
  }

  function twoLines(first, second) {
    return [String(first), el("br"), el("small", {}, [String(second)])];
  }

  function bar(kind, done, total, unit) {
    return [el("progress", {class: kind, max: String(total || 1), value: String(done)}), " ",
            el("span", {class: kind + "-count"}, [`${done}/${total} ${unit || kind}`])];
  }

  function fill(id, rows, columns, emptyText) {
    const body = document.getElementById(id);
    body.replaceChildren(...(rows.length ? rows
      : [el("tr", {class: "empty"}, [td([emptyText], {colspan: String(columns)})])]));
  }

  function render(data) {
    document.getElementById("status-line").textContent = data.line;
    document.getElementById("queue-note").textContent = data.queue_note;
    document.getElementById("updated").textContent = data.now;
    fill("running", data.running.map((r) => el("tr", {
      class: "crawl" + (r.stale ? " stale amber" : ""),
      id: "crawl-" + r.run_id,
    }, [
      td(twoLines(r.partition_key, "run " + r.run_id), {class: "partition"}),
      td([r.step, el("br"), el("small", {class: "kind"}, [r.kind])], {class: "step"}),
      td(bar("shows", r.shows_done, r.shows_total, r.unit)),
      td(bar("photos", r.photos_done, r.photos_total)),
      td([r.current_show], {class: "current-show"}),
      td([r.heartbeat_age + " ago"], {class: "heartbeat"}),
    ])), 6, "No crawl running.");
    fill("retrying", data.retrying.map((r) => el("tr", {class: "retrying",
                                                        id: "retrying-" + r.run_id}, [
      td(twoLines(r.partition_key, "run " + r.run_id)), td([r.step]),
      td([r.reason], {class: "reason"}),
      td([r.retry_at || "when Dagster says"], {class: "retry-at"}),
    ])), 4, "No step waiting to retry.");
    fill("ended", data.ended.map((r) => el("tr", {class: "crawl gone", id: "ended-" + r.run_id}, [
      td(twoLines(r.partition_key, "run " + r.run_id)),
      td([r.dagster_status], {class: "dagster-status"}),
      td([`${r.step} ${r.shows_done}/${r.shows_total} ${r.unit}`]),
    ])), 3, "No open row of an ended run.");
    fill("queued", data.queued.map((q) => el("tr", {class: "queued", id: "queued-" + q.run_id}, [
      td(twoLines(q.partition_key, "run " + q.run_id)), td([q.job_name]), td([q.status]),
      td([q.waiting], {class: "waiting"}),
    ])), 4, "No run waiting.");
    fill("outcomes", data.outcomes.map((o) => el("tr", {class: "outcome", id: "outcome-" + o.id}, [
      td([o.time]), td([o.brand]), td(twoLines(o.title || o.source_url, o.source_url)),
      td([(o.stage !== "ingest" ? o.stage + ": " : "") + o.outcome], {class: "result"}),
      td([o.reason], {class: "reason"}),
    ])), 5, "Nothing ingested yet.");
  }

  async function refresh() {
    try {
      const response = await fetch("/crawler.json", {credentials: "same-origin",
                                                     cache: "no-store"});
      if (response.status === 403) {
        window.location.assign("/login");
        return;
      }
      if (response.ok) render(await response.json());
    } catch (error) {
      // The server restarting or the network dropping: keep the last view, try again.
    }
    window.setTimeout(refresh, refreshMs);
  }

  window.setTimeout(refresh, refreshMs);
})();
