// kbgraph's web view: plain JavaScript over the HTTP API (docs/api.md), no build step, no network but the API.
"use strict";

const $ = (id) => document.getElementById(id);
const kbg = { pending: 0, graph: { cy: null, centre: null, drawing: 0, ids: new Map(), expired: new Set(), fetched: new Set() } };
window.kbg = kbg;  // read by the browser test (and handy in the console)

// --- talking to the API --------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function api(path, params = {}, method = "GET", body = undefined) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.append(key, String(value));
  }
  const url = path + (method === "GET" && query.toString() ? "?" + query : "");
  const headers = { Accept: "application/json" };
  const token = sessionStorage.getItem("kbg-token");
  if (token) headers.Authorization = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  kbg.pending += 1;
  try {
    const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const reply = await response.json().catch(() => null);
    if (response.status === 401 && !token) {
      const given = window.prompt("This server needs a token (kbg token create NAME):");
      if (given) { sessionStorage.setItem("kbg-token", given.trim()); return api(path, params, method, body); }
    }
    if (!response.ok) throw new ApiError(response.status, reply);
    return reply;
  } finally {
    kbg.pending -= 1;
  }
}

function say(text, ok = false) {
  const box = $("message");
  box.textContent = text;
  box.className = ok ? "ok" : "";
  box.hidden = !text;
}

function failed(error) {
  say(error instanceof ApiError ? `${error.message} (${error.status})` : String(error));
}

// --- small DOM helpers ---------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "html") node.innerHTML = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// The API marks matched words **like this**: shown as <mark>, everything else escaped.
function marked(text) {
  return escapeHtml(text || "").replace(/\*\*(.+?)\*\*/g, "<mark>$1</mark>");
}

function entityChip(name, type) {
  return el("button", { type: "button", class: "chip", "data-entity": name, onclick: () => openProfile(name, type) }, name);
}

// --- search --------------------------------------------------------------------------------------

async function runSearch(event) {
  if (event) event.preventDefault();
  const q = $("q").value.trim();
  if (!q) return;
  try {
    const result = await api("search", { q, limit: 20, passages: $("passages").checked });
    say("");
    renderHits(result);
  } catch (error) { failed(error); }
}

function renderHits(result) {
  const list = $("hits");
  list.replaceChildren();
  document.querySelector("#results .hint").textContent =
    `${result.count} ${result.unit === "passage" ? "passages" : "documents"} for “${result.query}”` +
    (result.notes.length ? " — " + result.notes.join("; ") : "");
  if (result.entities.length) list.append(el("li", { class: "meta" }, "Entities in the query: ",
                                             ...result.entities.map((name) => entityChip(name))));
  for (const hit of result.hits) {
    const where = `${hit.path}:${hit.line}`;
    list.append(el("li", { class: "hit" },
      el("div", { class: "title", onclick: () => openDocument(where, hit.title) }, hit.title || hit.path),
      el("div", { class: "meta" }, [where, hit.kind, hit.date, hit.heading].filter(Boolean).join(" · ")),
      el("div", { class: "snippet", html: marked(hit.snippet) })));
  }
}

async function openDocument(target, title) {
  try {
    const view = await api("documents/view", { target });
    $("document-title").textContent = title || view.document.path;
    $("document-text").textContent = view.chunk ? view.text : view.text.slice(view.document.body_offset || 0);
    $("document").hidden = false;
  } catch (error) { failed(error); }
}

// --- entities and profiles -----------------------------------------------------------------------

async function loadEntities() {
  try {
    const result = await api("entities", { limit: 1000 });
    const names = $("entity-names");
    names.replaceChildren(...result.entities.map((e) => el("option", { value: e.name }, e.type)));
    const top = [...result.entities].sort((a, b) => b.mention_count - a.mention_count).slice(0, 24);
    $("entity-chips").replaceChildren(...top.map((e) => entityChip(e.name, e.type)));
  } catch (error) { failed(error); }
}

async function openProfile(name, type) {
  try {
    const profile = await api("entities/profile", { name, type });
    say("");
    renderProfile(profile);
    await showGraph(profile.entity.name);
  } catch (error) {
    if (error instanceof ApiError && error.body && error.body.error.code === "ambiguous") {
      say(error.message);
      const box = $("message");
      for (const c of error.body.error.candidates) box.append(" ", entityChip(c.name, c.type));
    } else failed(error);
  }
}

function renderProfile(profile) {
  const e = profile.entity;
  $("profile-name").textContent = `${e.name} (${e.type})`;
  const rows = el("table");
  const row = (label, ...value) => rows.append(el("tr", {}, el("td", {}, label), el("td", {}, ...value)));
  if (e.aliases.length) row("aliases", e.aliases.join(", "));
  for (const [key, value] of Object.entries(e.attributes || {})) row(key, typeof value === "string" ? value : JSON.stringify(value));
  row("mentions", e.mention_count);
  for (const [type, names] of Object.entries(profile.relations || {})) row(type, ...names.map((n) => entityChip(n)));
  const connected = profile.connected || { by_type: {} };
  for (const [type, names] of Object.entries(connected.by_type)) {
    row(`${type} within ${connected.hops} hops`, ...names.map((n) => entityChip(n, type)));
  }
  const docs = el("ul");
  for (const d of profile.recent_documents || []) {
    docs.append(el("li", {}, el("a", { href: "#", onclick: (ev) => { ev.preventDefault(); openDocument(d.path, d.title); } },
                                d.title || d.path), " ", el("span", { class: "meta" }, [d.date, d.path].filter(Boolean).join(" · "))));
  }
  $("profile-body").replaceChildren(rows, el("h3", {}, "Recent documents"), docs);
  $("profile").hidden = false;
}

// --- the graph -----------------------------------------------------------------------------------

const PALETTE = ["#2f6fdf", "#d9534f", "#3a9a5b", "#8e44ad", "#e67e22", "#16a2b8", "#b8860b", "#c0398a",
                 "#5d6d7e", "#27ae60", "#7f8c8d", "#a0522d"];

const ENTITY_COLOURS = { person: "#2f6fdf", team: "#3a9a5b", project: "#d9534f", technology: "#8e44ad", topic: "#e67e22" };

function colourOf(text) {
  let h = 0;
  for (const c of text) h = (h * 31 + c.codePointAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

function makeGraph() {
  return cytoscape({
    container: $("graph"),
    minZoom: 0.2,
    maxZoom: 3,
    style: [
      { selector: "node", style: { label: "data(name)", "background-color": "data(colour)", "font-size": 11,
                                    "text-valign": "bottom", "text-margin-y": 4, width: 22, height: 22 } },
      { selector: "node.centre", style: { width: 32, height: 32, "border-width": 3, "border-color": "#1d232b" } },
      { selector: "node.expanded", style: { "border-width": 2, "border-color": "#1d232b" } },
      { selector: "edge", style: { label: "data(type)", "line-color": "data(colour)", "target-arrow-color": "data(colour)",
                                    "target-arrow-shape": "triangle", "curve-style": "bezier", width: 2, "font-size": 9,
                                    "text-rotation": "autorotate", "text-background-color": "#fff",
                                    "text-background-opacity": 0.8, color: "#333" } },
      { selector: "edge.expired", style: { "line-style": "dashed", opacity: 0.6 } },
      { selector: "edge.inferred", style: { "line-style": "dotted", width: 2.5 } },
    ],
  });
}

function graphOptions() {
  return { include_inferred: $("show-inferred").checked, include_expired: $("show-expired").checked };
}

async function showGraph(name) {
  const g = kbg.graph;
  g.cy = g.cy || makeGraph();
  g.cy.elements().remove();
  g.ids.clear(); g.expired.clear(); g.fetched.clear();
  g.centre = name;
  g.drawing += 1;  // an answer to an earlier drawing that comes in after this one is dropped
  $("graph-panel").hidden = false;
  g.cy.resize();
  await expand(name, Number($("depth").value));
}

// Adds the neighbourhood of `name` (depth hops) to the graph; returns how many entities were new.
async function expand(name, depth) {
  const g = kbg.graph, drawing = g.drawing;
  const data = await api("graph/neighbours", { entity: name, depth, limit: 300, ...graphOptions() });
  if (drawing !== g.drawing) return 0;
  const before = g.cy.nodes().length;
  const steps = [];
  addNode(data.entity_id, data.entity, data.entity_type);
  for (const level of data.levels) {
    for (const e of level.entities) { addNode(e.id, e.name, e.type); steps.push(...e.path); }
  }
  if (graphOptions().include_expired) await loadExpired(new Set(steps.map((s) => s.from)));
  if (drawing !== g.drawing) return 0;
  for (const step of steps) addEdge(step);
  g.cy.getElementById("e" + data.entity_id).addClass(name === g.centre ? "centre" : "expanded");
  g.cy.layout({ name: "cose", animate: false, randomize: false, fit: true, padding: 24, nodeRepulsion: () => 9000 }).run();
  renderLegend();
  return g.cy.nodes().length - before;
}

function addNode(id, name, type) {
  const g = kbg.graph;
  g.ids.set(name, "e" + id);
  if (g.cy.getElementById("e" + id).nonempty()) return;
  g.cy.add({ group: "nodes", data: { id: "e" + id, name, type, colour: ENTITY_COLOURS[type] || colourOf(type) } });
}

// The API states each hop as a sentence (subject --type--> object); the edge is drawn as it reads.
function addEdge(step) {
  const g = kbg.graph;
  const source = g.ids.get(step.subject), target = g.ids.get(step.object);
  if (!source || !target) return;
  const id = step.inferred ? `i:${source}:${step.type}:${target}` : "r" + step.relation_id;
  if (g.cy.getElementById(id).nonempty()) return;
  const classes = [step.inferred ? "inferred" : "", g.expired.has(sentenceKey(step)) ? "expired" : ""];
  g.cy.add({ group: "edges", classes: classes.filter(Boolean).join(" "),
             data: { id, source, target, type: step.type, colour: colourOf(step.type) } });
}

const sentenceKey = (r) => `${r.subject}|${r.type}|${r.object}`;

// A hop does not say whether its relation expired; the entity's relations (read from the hop's start) do.
async function loadExpired(names) {
  const g = kbg.graph;
  const todo = [...names].filter((n) => !g.fetched.has(n));
  await Promise.all(todo.map(async (name) => {
    g.fetched.add(name);
    try {
      const rel = await api("relations", { name, include_expired: true, limit: 0 });
      for (const r of [...rel.relations, ...rel.inverse_relations]) {
        if (r.expired) g.expired.add(sentenceKey(r));
      }
    } catch (error) { /* an ambiguous or unknown name: its hops are drawn as current */ }
  }));
}

function renderLegend() {
  const types = new Set(kbg.graph.cy.edges().map((e) => e.data("type")));
  const items = [...types].sort().map((t) => el("span", {}, el("span", { class: "swatch", style: `border-color:${colourOf(t)}` }), t));
  items.push(el("span", {}, el("span", { class: "swatch", style: "border-top-style:dashed;border-color:#666" }), "expired"));
  items.push(el("span", {}, el("span", { class: "swatch", style: "border-top-style:dotted;border-color:#666" }), "inferred"));
  $("legend").replaceChildren(...items);
}

async function onNodeTap(event) {
  const name = event.target.data("name");
  try {
    const added = await expand(name, 1);
    say(`${name}: ${added} more ${added === 1 ? "entity" : "entities"} (double-click opens the profile)`, true);
  } catch (error) { failed(error); }
}

// --- review queues -------------------------------------------------------------------------------

async function loadReview() {
  try {
    const [suggestions, questions, conflicts] = await Promise.all(
      [api("suggestions"), api("resolve/pending"), api("relations/conflicts")]);
    renderSuggestions(suggestions.suggestions);
    renderQuestions(questions.questions);
    renderConflicts(conflicts.conflicts);
  } catch (error) { failed(error); }
}

function renderSuggestions(rows) {
  $("suggestion-count").textContent = `(${rows.length})`;
  $("suggestions").replaceChildren(...rows.map((s) => el("li", { "data-id": s.id },
    el("div", { class: "what" }, `${s.source} —${s.type}→ ${s.target}`),
    el("div", { class: "meta" }, [s.confidence, s.rule, s.new_target ? "new entity: " + s.target : ""].filter(Boolean).join(" · ")),
    el("div", { class: "evidence", html: marked(s.evidence) }),
    el("div", { class: "meta" }, s.source_doc || ""),
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "accept", onclick: () => answer(`suggestions/${s.id}/accept`, `${s.source} ${s.type} ${s.target}: accepted`) }, "Accept"),
      el("button", { type: "button", class: "reject", onclick: () => answer(`suggestions/${s.id}/reject`, `${s.source} ${s.type} ${s.target}: rejected`) }, "Reject")))));
}

function renderQuestions(rows) {
  $("question-count").textContent = `(${rows.length})`;
  $("questions").replaceChildren(...rows.map((q) => el("li", { "data-id": q.id },
    el("div", { class: "what" }, `“${q.surface}” = ${q.candidate_name}?`),
    el("div", { class: "meta" }, [q.surface_type, q.score !== null ? `score ${q.score.toFixed(2)}` : "", q.doc_path].filter(Boolean).join(" · ")),
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "accept", onclick: () => answer(`resolve/${q.id}/confirm`, `“${q.surface}” is ${q.candidate_name}`) }, "Confirm"),
      el("button", { type: "button", class: "reject", onclick: () => answer(`resolve/${q.id}/reject`, `“${q.surface}” is not ${q.candidate_name}`) }, "Reject")))));
}

// Keeping one side ends the other (true until yesterday); "Both" is for two that hold in different contexts.
function renderConflicts(rows) {
  $("conflict-count").textContent = `(${rows.length})`;
  $("conflicts").replaceChildren(...rows.map((c) => {
    const settle = (keep, done) => answer(`relations/conflicts/${c.id}/resolve`, `${c.subject} ${c.type}: ${done}`, { keep });
    return el("li", { "data-id": c.id },
      el("div", { class: "what" }, `${c.subject} —${c.type}→ ${c.old.other} or ${c.new.other}?`),
      el("div", { class: "meta" }, [c.kind, c.note].filter(Boolean).join(" · ")),
      el("div", { class: "buttons" },
        el("button", { type: "button", class: "keep-old", onclick: () => settle("old", `kept ${c.old.other}`) }, `Keep ${c.old.other}`),
        el("button", { type: "button", class: "keep-new", onclick: () => settle("new", `kept ${c.new.other}`) }, `Keep ${c.new.other}`),
        el("button", { type: "button", class: "keep-both", onclick: () => settle("both", "both kept") }, "Both")));
  }));
}

async function answer(path, done, body = undefined) {
  try {
    await api(path, {}, "POST", body);
    say(done, true);
    await loadReview();
    if (kbg.graph.centre) await showGraph(kbg.graph.centre);
  } catch (error) { failed(error); }
}

// --- wiring --------------------------------------------------------------------------------------

function start() {
  $("search-form").addEventListener("submit", runSearch);
  $("entity-form").addEventListener("submit", (event) => { event.preventDefault(); openProfile($("entity-name").value.trim()); });
  $("depth").addEventListener("change", () => kbg.graph.centre && showGraph(kbg.graph.centre));
  $("show-inferred").addEventListener("change", () => kbg.graph.centre && showGraph(kbg.graph.centre));
  $("show-expired").addEventListener("change", () => kbg.graph.centre && showGraph(kbg.graph.centre));
  $("fit").addEventListener("click", () => kbg.graph.cy && kbg.graph.cy.fit(undefined, 24));
  kbg.graph.cy = makeGraph();
  kbg.graph.cy.on("tap", "node", onNodeTap);
  kbg.graph.cy.on("dbltap", "node", (event) => openProfile(event.target.data("name"), event.target.data("type")));
  loadEntities();
  loadReview();
}

document.addEventListener("DOMContentLoaded", start);
