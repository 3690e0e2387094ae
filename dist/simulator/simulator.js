// Deck head unit simulator: draws the foreground app's screen from ui.get, follows the runtime's
// notifications (server-sent events on /events) and drives the same JSON-RPC methods an HMI does
// (POST /rpc). Plain JavaScript, no framework; every string from an app goes in as text, never HTML.
"use strict";

const state = { ui: null, nowPlaying: null, session: null, volume: null, apps: [], sinks: [], lastSeq: 0, mode: {}, images: {} };
// What tests and authors can read: events seen, gaps, screens drawn, and how long each took.
const stats = window.deckSimulator = { events: 0, gaps: 0, renders: 0, lastSeq: 0, clickToScreenMs: [], eventToScreenMs: [] };
let nextId = 1;

async function rpc(method, params) {
  const response = await fetch("/rpc", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: params || {} }),
  });
  if (!response.ok) throw new Error(`${method}: HTTP ${response.status} ${await response.text()}`);
  const answer = await response.json();
  if (answer.error) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result;
}

function reportError(error) {
  const item = document.createElement("li");
  item.textContent = error.message || String(error);
  const list = document.getElementById("errors");
  list.prepend(item);
  while (list.children.length > 20) list.lastChild.remove();
}

// Runs `method`; when its answer is a screen, draws it and records click-to-screen time.
async function act(method, params) {
  const started = performance.now();
  try {
    const result = await rpc(method, params);
    if (result && result.display && "stack" in result) {
      state.ui = result;
      drawScreen(() => stats.clickToScreenMs.push(performance.now() - started));
    }
    return result;
  } catch (error) { reportError(error); }
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function clock(seconds) {
  if (seconds === null || seconds === undefined || !isFinite(seconds)) return "--:--";
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// An image an app handed over (ui.image), fetched once and kept as a data URL.
function appImage(img, app, id) {
  const key = `${app}/${id}`;
  if (state.images[key]) { img.src = state.images[key]; return; }
  rpc("ui.image", { app, id }).then((image) => {
    state.images[key] = `data:${image.mimeType};base64,${image.data}`;
    img.src = state.images[key];
  }).catch(() => { img.hidden = true; });
}

function webImage(img, uri) {
  if (uri && /^(https?:|data:)/.test(uri)) img.src = uri; else img.hidden = true;
}

// ---- the screen ----

function drawScreen(done) {
  const ui = state.ui;
  const screen = document.getElementById("screen");
  const body = document.getElementById("body");
  const tabs = document.getElementById("tabs");
  const modal = document.getElementById("modal");
  const display = ui.display;
  screen.style.width = `${display.width}px`;
  screen.style.height = `${display.height}px`;
  screen.className = display.contentStyle === "light" ? "light" : "dark";
  screen.dataset.driving = display.driving;
  document.getElementById("profile").value = `${display.width}x${display.height}`;
  document.getElementById("driving").checked = display.driving;
  document.getElementById("light").checked = display.contentStyle === "light";
  body.replaceChildren();
  tabs.replaceChildren();
  modal.replaceChildren();
  modal.hidden = true;

  const stack = ui.stack || [];
  const content = ui.content;
  const mode = state.mode[ui.app] || (stack.length ? "screen" : "browse");
  const modeBar = document.getElementById("mode");
  modeBar.replaceChildren();
  if (stack.length && content) {
    for (const name of ["screen", "browse"]) {
      const button = element("button", mode === name ? "on" : "", name === "screen" ? "App" : "Browse");
      button.type = "button";
      button.onclick = () => { state.mode[ui.app] = name; drawScreen(); };
      modeBar.append(button);
    }
  }
  const quota = document.getElementById("quota");
  quota.textContent = ui.limits ? `${display.driving ? "driving · " : ""}quota ${ui.quotaRemaining}/${ui.limits.quota}` : "";
  quota.className = display.driving ? "driving" : "";

  if (!ui.app) {
    document.getElementById("title").textContent = "No app with a screen";
    body.append(element("div", "empty", display.attached ? "Load an app that offers a UI." : "The display is detached."));
  } else if (mode === "browse" && content) {
    drawContent(content, body, tabs);
  } else if (stack.length) {
    const top = stack[stack.length - 1];
    document.getElementById("title").textContent = top.title || ui.app;
    if (top.type === "tabBar") {
      const selected = top.tabs[ui.selectedTab || 0];
      top.tabs.forEach((tab, index) => {
        const button = element("button", index === (ui.selectedTab || 0) ? "on" : "", tab.title || `Tab ${index + 1}`);
        button.type = "button";
        button.dataset.id = tab.id;
        button.onclick = () => act("ui.select", { id: tab.id });
        tabs.append(button);
      });
      if (selected) drawTemplate(selected, body);
    } else {
      drawTemplate(top, body);
    }
  } else {
    document.getElementById("title").textContent = ui.app;
    body.append(element("div", "empty", "The app has not set a screen yet."));
  }
  document.getElementById("back").disabled = !(stack.length > 1 || ui.modal || (mode === "browse" && content && content.path.includes("/")));
  if (ui.modal) drawModal(ui.modal, modal);
  stats.renders += 1;
  requestAnimationFrame(() => { if (done) done(); });
}

function drawTemplate(template, body) {
  const pending = new Set(state.ui.pending || []);
  const row = (item, className) => {
    const button = element("button", `row ${className || ""}${pending.has(item.id) ? " pending" : ""}`);
    button.type = "button";
    button.dataset.id = item.id;
    if (item.image) { const img = element("img"); appImage(img, state.ui.app, item.image); button.append(img); }
    else if (item.imageURI) { const img = element("img"); webImage(img, item.imageURI); button.append(img); }
    const text = element("div", "text");
    text.append(element("div", item.playing ? "playing" : "", item.text));
    if (item.detail) text.append(element("div", "detail", item.detail));
    button.append(text);
    if (item.accessory) button.append(element("span", "detail", /^disclosure/.test(item.accessory) ? "›" : item.accessory));
    button.disabled = item.selectable === false;
    button.onclick = () => act("ui.select", { id: item.id });
    return button;
  };
  if (template.message) body.append(element("div", "message", template.message));
  if (template.type === "nowPlaying") drawNowPlaying(template, body);
  const sections = template.sections || [];
  const rows = template.type === "grid" ? null : body;
  for (const section of sections) {
    if (section.header) body.append(element("div", "header", section.header));
    for (const item of section.items) rows.append(row(item));
  }
  if (template.dropped) {
    const note = element("div", "truncated", `${template.dropped} more hidden by the display limits${state.ui.display.driving ? " while driving" : ""}`);
    note.dataset.dropped = template.dropped;
    body.append(note);
  }
  const buttons = template.buttons || [];
  if (buttons.length) {
    const box = element("div", template.type === "grid" ? "grid" : "buttons");
    for (const item of buttons) {
      const button = template.type === "grid" ? row(item) : element("button", "", item.text);
      button.type = "button";
      button.dataset.id = item.id;
      button.onclick = () => act("ui.button", { id: item.id });
      box.append(button);
    }
    body.append(box);
  }
  if (!sections.length && !buttons.length && template.type !== "nowPlaying") body.append(element("div", "empty", `(${template.type})`));
}

// Whether a remote button does anything now, as a head unit greys them: what the owner enabled
// (play/pause resumes the last source when nothing owns now playing).
function canSend(np, command) {
  const name = command.slice("player.".length);
  return (name === "togglePlayPause" && !np.owner) || (np.commands || []).includes(name);
}

function drawNowPlaying(template, body) {
  const np = state.ui.nowPlaying || state.nowPlaying || {};
  const box = element("div", "nowplaying");
  const art = element("img");
  artwork(art, np);
  const text = element("div");
  text.style.flex = "1";
  text.append(element("div", "title", np.title || "Not playing"), element("div", "detail", (np.artists || []).join(", ")),
              element("div", "detail", np.album || ""));
  const progress = element("progress", "elapsed");
  progress.max = 1;
  text.append(progress, element("div", "detail elapsed-text"));
  const controls = element("div", "buttons");
  for (const [label, command] of [["Previous", "player.previous"], ["Play / pause", "player.togglePlayPause"], ["Next", "player.next"]]) {
    const button = element("button", "", label);
    button.type = "button";
    button.disabled = !canSend(np, command);
    button.onclick = () => act(command);
    controls.append(button);
  }
  text.append(controls);
  box.append(art, text);
  body.append(box);
  tick();
}

function drawContent(content, body, tabs) {
  document.getElementById("title").textContent = state.ui.app;
  const current = content.path || "";
  for (const tab of content.tabs || []) {
    const on = current === tab.path || current.startsWith(`${tab.path}/`);
    const button = element("button", on ? "on" : "", tab.title);
    button.type = "button";
    button.dataset.path = tab.path;
    button.onclick = () => act("ui.select", { path: tab.path });
    tabs.append(button);
  }
  if (content.loading) body.append(element("div", "empty", "Loading…"));
  if (content.error) body.append(element("div", "truncated", content.error));
  for (const item of content.items || []) {
    const button = element("button", "row");
    button.type = "button";
    button.dataset.path = item.path;
    if (item.artworkURI) { const img = element("img"); webImage(img, item.artworkURI); button.append(img); }
    const text = element("div", "text");
    text.append(element("div", item.playing ? "playing" : "", item.title));
    if (item.subtitle) text.append(element("div", "detail", item.subtitle));
    button.append(text);
    if (item.container) button.append(element("span", "detail", "›"));
    button.onclick = () => act("ui.select", { path: item.path });
    body.append(button);
  }
  if (!content.loading && !(content.items || []).length && !content.error) body.append(element("div", "empty", "Nothing here"));
  if (content.dropped) {
    const note = element("div", "truncated", `${content.dropped} more hidden by the display limits${state.ui.display.driving ? " while driving" : ""}`);
    note.dataset.dropped = content.dropped;
    body.append(note);
  }
}

function drawModal(template, modal) {
  const sheet = element("div", "sheet");
  sheet.append(element("div", "title", template.title || ""));
  if (template.message) sheet.append(element("div", "message", template.message));
  const box = element("div", "buttons");
  for (const item of template.buttons || []) {
    const button = element("button", "", item.text);
    button.type = "button";
    button.dataset.id = item.id;
    button.onclick = () => act("ui.button", { id: item.id });
    box.append(button);
  }
  sheet.append(box);
  modal.append(sheet);
  modal.hidden = false;
}

// ---- side panels ----

function artwork(img, np) {
  img.hidden = false;
  const art = np.artwork;
  if (art && art.id) {
    if (state.images[art.id]) { img.src = state.images[art.id]; return; }
    rpc("nowPlaying.artwork", { id: art.id }).then((data) => {
      state.images[art.id] = `data:${data.mimeType};base64,${data.data}`;
      img.src = state.images[art.id];
    }).catch(() => { img.hidden = true; });
  } else {
    webImage(img, np.artworkUri);
  }
}

function drawNowPlayingPanel() {
  const np = state.nowPlaying || {};
  document.getElementById("np-title").textContent = np.title || "—";
  document.getElementById("np-artist").textContent = [(np.artists || []).join(", "), np.album].filter(Boolean).join(" · ");
  document.getElementById("np-state").textContent = np.owner ? `${np.playbackState} · ${np.owner}${np.live ? " · live" : ""}` : "nothing plays";
  for (const button of document.querySelectorAll("#np-buttons button")) button.disabled = !canSend(np, button.dataset.command);
  artwork(document.getElementById("np-art"), np);
  tick();
}

// Elapsed time between notifications: extrapolated from the last one, as MPRIS clients do.
function tick() {
  const np = state.nowPlaying || {};
  const elapsed = np.elapsed === undefined || np.elapsed === null ? null
    : np.elapsed + (np.rate || 0) * (Date.now() - (np.receivedAt || Date.now())) / 1000;
  const fraction = np.duration && elapsed !== null ? Math.min(1, elapsed / np.duration) : 0;
  const text = np.live ? "live" : `${clock(elapsed)} / ${clock(np.duration)}`;
  document.getElementById("np-time").textContent = text;
  document.getElementById("np-progress").value = fraction;
  for (const node of document.querySelectorAll("#body progress.elapsed")) node.value = fraction;
  for (const node of document.querySelectorAll("#body .elapsed-text")) node.textContent = text;
}

function drawApps() {
  const box = document.getElementById("apps");
  box.replaceChildren();
  for (const app of state.apps) {
    if (!(app.offers || []).some((offer) => offer === "ui" || offer === "content")) continue;
    const button = element("button", state.ui && state.ui.app === app.id ? "on" : "", app.name || app.id);
    button.type = "button";
    button.title = `${app.id} ${app.version} (${app.state})`;
    button.dataset.app = app.id;
    button.onclick = () => act("apps.launch", { id: app.id }).then(() => rpc("ui.get").then((ui) => { state.ui = ui; drawScreen(); drawApps(); }));
    box.append(button);
  }
}

function drawVolume() {
  const box = document.getElementById("volume");
  box.replaceChildren();
  for (const group of (state.volume && state.volume.groups) || []) {
    const row = element("div", group.name === state.volume.keys ? "group keys" : "group");
    row.dataset.group = group.name;
    if (group.name === state.volume.keys) row.title = "The volume keys step this group now";
    const meter = element("meter");
    meter.min = group.minIndex;
    meter.max = group.maxIndex;
    meter.value = group.index;
    const down = element("button", "", "−");
    down.type = "button";
    down.onclick = () => act("volume.adjust", { group: group.name, steps: -1 });
    const up = element("button", "", "+");
    up.type = "button";
    up.onclick = () => act("volume.adjust", { group: group.name, steps: 1 });
    const mute = element("button", "", group.muted ? "Unmute" : "Mute");
    mute.type = "button";
    mute.onclick = () => act("volume.mute", { group: group.name, muted: !group.muted });
    const level = element("span", "level", group.muted ? "muted" : `${group.index}/${group.maxIndex}`);
    level.dataset.index = group.index;
    row.append(element("span", "name", group.name), down, meter, up, mute, level);
    box.append(row);
  }
}

function drawSession() {
  const box = document.getElementById("session");
  box.replaceChildren();
  const session = state.session || {};
  box.append(element("div", "holder", session.active ? "output active" : "output idle"));
  for (const holder of session.holders || []) {
    const line = element("div", "holder");
    line.dataset.owner = holder.owner;
    const ducked = (holder.duckedBy || []).length > 0;
    const paused = (holder.pausedBy || []).length > 0;
    const label = paused ? "paused" : ducked ? "ducked" : holder.state;
    line.append(element("span", `state ${label}`, label), document.createTextNode(` ${holder.owner} · ${holder.context}`));
    if (ducked) line.append(document.createTextNode(` (by ${holder.duckedBy.join(", ")})`));
    box.append(line);
  }
}

function drawListen() {
  const box = document.getElementById("listen");
  box.replaceChildren();
  const sink = state.sinks.find((candidate) => /^http:\/\//.test(candidate.uri));
  if (!sink) { box.append(element("div", "detail", "No HTTP sink: start deckd with --sink http://127.0.0.1:PORT/stream.opus")); return; }
  const audio = element("audio");
  audio.controls = true;
  audio.preload = "none";
  audio.src = sink.uri.replace(/\?.*$/, "");
  box.append(audio, element("div", "detail", sink.uri));
}

// ---- notifications ----

const handlers = {
  "ui.changed": (params) => { state.ui = params; return drawScreen; },
  "nowPlaying.changed": (params) => { state.nowPlaying = { ...params, receivedAt: Date.now() }; return drawNowPlayingPanel; },
  "session.changed": (params) => { state.session = params; return drawSession; },
  "volume.changed": (params) => { state.volume = params; return drawVolume; },
  "apps.changed": (params) => { state.apps = params.apps; return drawApps; },
  "sinks.changed": (params) => { state.sinks = params.sinks; return drawListen; },
};

function onEvent(message) {
  const arrived = performance.now();
  const note = JSON.parse(message.data);
  const params = note.params || {};
  stats.events += 1;
  if (state.lastSeq && params.seq !== state.lastSeq + 1) { stats.gaps += 1; loadAll(); }
  state.lastSeq = stats.lastSeq = params.seq;
  const handler = handlers[note.method];
  if (!handler) return;
  const draw = handler(params);
  if (note.method === "ui.changed") draw(() => stats.eventToScreenMs.push(performance.now() - arrived)); else draw();
}

async function loadAll() {
  try {
    const [ui, nowPlaying, session, volume, apps, sinks] = await Promise.all([
      rpc("ui.get"), rpc("nowPlaying.get"), rpc("session.get"), rpc("volume.get"), rpc("apps.list"), rpc("sinks.list")]);
    Object.assign(state, { ui, session, volume, apps: apps.apps, sinks: Array.isArray(sinks) ? sinks : sinks.sinks, nowPlaying: { ...nowPlaying, receivedAt: Date.now() } });
    drawScreen();
    drawApps();
    drawNowPlayingPanel();
    drawSession();
    drawVolume();
    drawListen();
  } catch (error) { reportError(error); }
}

function connect() {
  const link = document.getElementById("link");
  const source = new EventSource("/events");
  source.onopen = () => { link.textContent = "live"; link.className = "link up"; state.lastSeq = 0; loadAll(); };
  source.onerror = () => { link.textContent = "reconnecting…"; link.className = "link down"; };
  source.onmessage = onEvent;
}

document.getElementById("back").onclick = () => act("ui.back");
document.getElementById("profile").onchange = (event) => {
  const [width, height] = event.target.value.split("x").map(Number);
  act("display.set", { width, height });
};
document.getElementById("driving").onchange = (event) => act("display.set", { driving: event.target.checked });
document.getElementById("light").onchange = (event) => act("display.set", { contentStyle: event.target.checked ? "light" : "dark" });
document.getElementById("vol-down").onclick = () => act("volume.adjust", { steps: -1 });
document.getElementById("vol-up").onclick = () => act("volume.adjust", { steps: 1 });
for (const button of document.querySelectorAll("#np-buttons button")) button.onclick = () => act(button.dataset.command);
setInterval(tick, 250);
connect();
