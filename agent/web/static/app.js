// opsagent serve: live updates over server-sent events; no inline script anywhere (CSP).
"use strict";

function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }

function toolText(r) { return (r.tool || "-") + (r.tool_running ? " …" : ""); }

function updateRow(row, r) {
  row.className = "run " + r.status;
  const badge = row.querySelector(".status .badge");
  badge.className = "badge " + r.status + (r.kind ? " " + r.kind : "");
  setText(badge, r.badge);
  setText(row.querySelector(".step"), String(r.step));
  setText(row.querySelector(".tool"), toolText(r));
  setText(row.querySelector(".elapsed"), r.elapsed);
  const q = row.querySelector(".question");
  if (r.question) {
    if (!q.querySelector("a") || q.textContent !== r.question) {
      q.replaceChildren();
      const a = document.createElement("a");
      a.href = "/runs/" + encodeURIComponent(r.run_id);
      a.textContent = r.question;
      q.appendChild(a);
    }
  } else if (q.textContent) { q.replaceChildren(); }
}

async function refreshInbox() {
  const res = await fetch("/", { credentials: "same-origin" });
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  const fresh = doc.querySelector("#runs tbody");
  if (fresh) document.querySelector("#runs tbody").replaceWith(fresh);
  setText(document.getElementById("waiting-count"), doc.getElementById("waiting-count").textContent);
}

function inbox() {
  const source = new EventSource("/events");
  source.onmessage = (ev) => {
    const runs = JSON.parse(ev.data).runs;
    let unknown = false;
    for (const r of runs) {
      const row = document.querySelector('tr[data-run="' + CSS.escape(r.run_id) + '"]');
      if (row) updateRow(row, r); else unknown = true;
    }
    const waiting = document.querySelectorAll("#runs tr.waiting").length;
    setText(document.getElementById("waiting-count"), waiting + " waiting");
    if (unknown) refreshInbox();
  };
}

async function refreshThread(runId) {
  const res = await fetch("/runs/" + encodeURIComponent(runId) + "/parts", { credentials: "same-origin" });
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  const thread = doc.getElementById("thread");
  const pendingNew = doc.getElementById("pending");
  document.getElementById("thread").replaceWith(thread);
  const pendingOld = document.getElementById("pending");
  // the reply form is swapped only when the question changed: never under the operator's typing
  if (pendingOld.dataset.question !== pendingNew.dataset.question) pendingOld.replaceWith(pendingNew);
}

function thread(runId) {
  let lastVersion = null;
  const source = new EventSource("/events?run=" + encodeURIComponent(runId));
  source.onmessage = (ev) => {
    for (const r of JSON.parse(ev.data).runs) {
      if (r.run_id !== runId) continue;
      const badge = document.getElementById("live-status");
      if (badge) { badge.className = "badge " + r.status + (r.kind ? " " + r.kind : ""); setText(badge, r.badge); }
      setText(document.getElementById("live-step"), String(r.step));
      setText(document.getElementById("live-tool"), toolText(r));
      setText(document.getElementById("live-tool-label"), r.tool_label);
      setText(document.getElementById("live-elapsed"), r.elapsed);
      const tail = document.getElementById("log-tail");
      if (tail) { tail.hidden = r.log_tail.length === 0; setText(tail, r.log_tail.join("\n")); }
      if (lastVersion !== null && r.version !== lastVersion) refreshThread(runId);
      if (lastVersion === null && !document.getElementById("live")) location.reload(); // it started
      lastVersion = r.version;
    }
  };
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.body.dataset.page;
  if (page === "inbox") inbox();
  if (page === "thread") thread(document.body.dataset.run);
});
