// The studio monitor page: renders the watch's status (server-sent events) and posts look changes.
// No library, no build step; every value reaches the page through textContent, never as HTML.
"use strict";

const token = new URLSearchParams(location.search).get("token");
const csrf = document.querySelector('meta[name="lightwork-csrf"]').content;
let selected = null;      // key of the frame chosen in the filmstrip (frameKey), null: follow the newest
let shown = null;         // the frame shown large (what "Re-develop" develops again)
let lastStatus = null;
let catalogLoaded = false;
let showBefore = false;   // before/after: show the frame developed without its look

function withToken(url) {
  return token ? url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : url;
}
function headers(extra) {
  const h = Object.assign({}, extra || {});
  if (token) h["X-LightWork-Token"] = token;
  return h;
}
function $(id) { return document.getElementById(id); }
function setText(id, text) { const e = $(id); if (e.textContent !== text) e.textContent = text; }
// A file's frame and its re-develops share the file's index; a re-develop has its own number too.
function frameKey(frame) { return String(frame.index) + (frame.redevelopment ? "r" + frame.redevelopment : ""); }
function previewURL(frame) { return frame.preview ? withToken("/previews/" + frame.preview.split("/").pop()) : null; }
function beforeURL(frame) { return frame.before ? withToken("/previews/" + frame.before.split("/").pop()) : null; }

function duration(seconds) {
  if (seconds === undefined || seconds === null) return "–";
  if (seconds < 60) return Math.round(seconds) + " s";
  if (seconds < 3600) return Math.floor(seconds / 60) + " min " + Math.round(seconds % 60) + " s";
  return Math.floor(seconds / 3600) + " h " + Math.round((seconds % 3600) / 60) + " min";
}

function fillList(id, names) {
  const list = $(id);
  list.replaceChildren(...names.map(name => { const li = document.createElement("li"); li.textContent = name; return li; }));
}

function showFrame(frame) {
  shown = frame;
  $("redevelop").disabled = frame.status !== "converted";
  const img = $("latest-img");
  // Before/after is offered for a frame that had a look (its before picture exists); the choice stays as frames change.
  const before = beforeURL(frame);
  const useBefore = showBefore && before !== null;
  const toggle = $("before-after");
  toggle.hidden = before === null;
  toggle.setAttribute("aria-pressed", useBefore ? "true" : "false");
  setText("before-after", useBefore ? "Before (no look): show after" : "Show before");
  document.body.dataset.showing = useBefore ? "before" : "after";
  const url = useBefore ? before : previewURL(frame);
  if (url) {
    if (img.getAttribute("src") !== url) img.src = url;
    img.alt = frame.input;
    img.hidden = false;
    $("latest-empty").hidden = true;
  } else {
    img.hidden = true;
    $("latest-empty").hidden = false;
    $("latest-empty").textContent = frame.status === "failed" ? "Failed: " + (frame.reason || "") : "No preview for " + frame.input;
  }
  document.body.dataset.shown = frame.input;
  setText("latest-name", frame.input);
  setText("latest-status", (frame.redevelopment ? "re-developed as " + (frame.output || "–") + ", " : "") + frame.status
    + (frame.seconds ? " in " + frame.seconds.toFixed(2) + " s" : ""));
  $("latest-status").className = frame.status;
  setText("latest-camera", frame.camera || "");
  setText("latest-exposure", frame.exposure || "");
  setText("latest-look", frame.look || "");
}

function render(s) {
  lastStatus = s;
  setText("state", s.state);
  setText("look", s.look || s.recipe || "–");
  const next = $("next-look");
  next.hidden = !s.nextLook;
  next.textContent = s.nextLook ? "next: " + s.nextLook + " (after the files in flight)" : "";
  // From `lightwork serve`: a change handed to the watch and not yet taken, and why the page is read-only.
  if (!s.nextLook && s.handedLook) { next.hidden = false; next.textContent = "next: " + s.handedLook + " (handed to the watch)"; }
  const notice = $("served-notice");
  notice.hidden = !s.servedNotice;
  setText("served-notice", s.servedNotice || "");
  setText("rate", s.perMinute !== undefined && s.perMinute !== null ? String(s.perMinute) : "–");
  setText("eta", s.secondsToEmpty ? duration(s.secondsToEmpty) : (s.waiting + s.queued + s.inProgress === 0 ? "empty" : "–"));
  setText("count-waiting", String(s.waiting));
  setText("count-queued", String(s.queued));
  setText("count-converting", String(s.inProgress));
  setText("count-converted", String(s.converted));
  setText("count-skipped", String(s.skipped));
  setText("count-failed", String(s.failed));
  fillList("list-converting", s.inProgressFiles || []);
  fillList("list-queued", s.queuedFiles || []);
  fillList("list-waiting", s.waitingFiles || []);
  const failures = $("failures");
  failures.replaceChildren(...(s.recentFailures || []).slice().reverse().map(f => {
    const li = document.createElement("li");
    li.textContent = f.path;
    const why = document.createElement("small");
    why.textContent = f.reason;
    li.appendChild(why);
    return li;
  }));

  const frames = s.recent || [];
  const strip = $("filmstrip");
  strip.replaceChildren(...frames.slice().reverse().map(frame => {
    const li = document.createElement("li");
    li.dataset.index = String(frame.index);
    li.dataset.input = frame.input;
    if (frame.redevelopment) li.dataset.redevelopment = String(frame.redevelopment);
    li.className = frame.status + (frame.redevelopment ? " redeveloped" : "") + (selected === frameKey(frame) ? " selected" : "");
    const url = previewURL(frame);
    if (url) {
      const img = document.createElement("img");
      img.src = url;
      img.alt = frame.input;
      li.appendChild(img);
    } else {
      const none = document.createElement("div");
      none.className = "nothumb";
      none.textContent = frame.status;
      li.appendChild(none);
    }
    const name = document.createElement("span");
    name.textContent = frame.input;
    li.appendChild(name);
    li.addEventListener("click", () => { selected = selected === frameKey(frame) ? null : frameKey(frame); render(lastStatus); });
    return li;
  }));
  const chosen = frames.find(f => frameKey(f) === selected) || frames[frames.length - 1];
  if (chosen) showFrame(chosen);
  document.body.dataset.converted = String(s.converted);
  document.body.dataset.ready = "1";
}

async function loadCatalog() {
  const response = await fetch(withToken("/api/catalog"), { headers: headers() });
  if (!response.ok) throw new Error("catalog: HTTP " + response.status);
  const catalog = await response.json();
  const recipe = $("recipe"), film = $("film");
  for (const r of catalog.recipes) {
    const o = document.createElement("option");
    o.value = r.name;
    o.textContent = r.name;
    recipe.appendChild(o);
  }
  for (const f of catalog.films) {
    const o = document.createElement("option");
    o.value = f.id;
    o.textContent = f.name + " (" + f.pack + ")";
    film.appendChild(o);
  }
  catalogLoaded = true;
  document.body.dataset.catalog = String(catalog.films.length);
}

function chosenLook() {
  const change = { strength: Number($("strength").value) };
  if ($("recipe").value) change.recipe = $("recipe").value;
  change.film = $("film").value;
  return change;
}

// A change as the server takes it: JSON with the page's CSRF token; `accepted` gets the answer, a refusal is shown.
async function postChange(path, body, accepted) {
  setText("look-message", "sending…");
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: headers({ "Content-Type": "application/json", "X-LightWork-CSRF": csrf }),
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.ok) accepted(JSON.parse(text));
    else setText("look-message", "Refused: " + text.trim());
  } catch (e) {
    setText("look-message", "Not sent: " + e.message);
  }
}

function applyLook(event) {
  event.preventDefault();
  postChange("/api/look", chosenLook(), answer => {
    setText("look-message", "Next files: " + answer.look + " (" + answer.applies + ")");
    document.body.dataset.lookSent = answer.look;
  });
}

// The frame shown, developed again with the look chosen, as an extra output (its own stays as it is).
function redevelop() {
  if (!shown) return;
  postChange("/api/redevelop", Object.assign({ frame: shown.index }, chosenLook()), answer => {
    setText("look-message", "Re-developing frame " + answer.frame + ": " + answer.look);
    document.body.dataset.redevelopSent = String(answer.frame);
  });
}

function connect() {
  const events = new EventSource(withToken("/api/events"));
  events.addEventListener("open", () => { setText("connection", "live"); $("connection").className = "badge on"; });
  events.addEventListener("status", e => render(JSON.parse(e.data)));
  events.addEventListener("watch", e => {
    const event = JSON.parse(e.data);
    if (event.event === "notice" || event.event === "lookHanded" || event.event === "lookTaken") setText("look-message", event.message);
    if (event.event === "redeveloped") {
      setText("look-message", "Re-developed " + event.input + " as " + event.output + " (" + event.look + ")");
      document.body.dataset.redeveloped = event.output;
    }
    if (event.event === "redevelopFailed") setText("look-message", event.reason);
  });
  events.addEventListener("error", () => { setText("connection", "reconnecting"); $("connection").className = "badge off"; });
}

function toggleBefore() { showBefore = !showBefore; if (lastStatus) render(lastStatus); }
$("before-after").addEventListener("click", toggleBefore);
document.addEventListener("keydown", e => {
  if ((e.key === "b" || e.key === "B") && !e.target.closest("input, select, textarea")) toggleBefore();
});
$("strength").addEventListener("input", () => setText("strength-value", $("strength").value));
$("look-form").addEventListener("submit", applyLook);
$("redevelop").addEventListener("click", redevelop);
loadCatalog().catch(e => setText("look-message", e.message));
connect();
