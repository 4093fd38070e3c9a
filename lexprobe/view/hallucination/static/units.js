// The hallucination list of `lexprobe view`: filters, sorting, paging, search and the detail of one answer.
// Every value reaches the page through textContent (never as HTML). In the server viewer the data comes from the
// app's own /api endpoints; in the static copy (data-mode="static") from the data-N.js files loaded before this one.
"use strict";
(function () {
  const FILTERS = ["task", "level", "style", "model", "label", "year_from", "year_to", "case", "q", "sort", "dir", "size"];
  const FACETS = ["task", "level", "style", "model", "label"];
  const staticMode = document.body.dataset.mode === "static";
  const $ = (id) => document.getElementById(id);
  let state = { page: 1, total: 0, rows: [] };

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message || "";
    box.classList.toggle("hidden", !message);
  }

  async function getJSON(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
    return body;
  }

  // ---- data sources -------------------------------------------------------------------------------------------
  const data = staticMode ? window.LEXPROBE_UNITS : null;

  function staticFacets() {
    return data.meta;
  }

  function matches(row, params) {
    for (const name of ["task", "level", "style", "model", "label"]) {
      const want = params.get(name);
      if (want && row[name] !== want) return false;
    }
    const from = params.get("year_from"), to = params.get("year_to");
    if (from && !(row.year !== null && row.year >= Number(from))) return false;
    if (to && !(row.year !== null && row.year <= Number(to))) return false;
    const kase = (params.get("case") || "").toLowerCase();
    if (kase && !(row.case_name + " " + row.citation + " " + row.case_id).toLowerCase().includes(kase)) return false;
    const words = (params.get("q") || "").toLowerCase().split(/\s+/).filter(Boolean);
    const answer = (row.detail && row.detail.answer ? row.detail.answer : row.answer || "").toLowerCase();
    return words.every((word) => answer.includes(word.replace(/\*$/, "")));
  }

  function staticPage(params) {
    const SORTS = { case: "case_name" };
    let rows = data.rows.filter((row) => matches(row, params));
    const sort = params.get("sort");
    if (sort) {
      const key = SORTS[sort] || sort, sign = params.get("dir") === "desc" ? -1 : 1;
      rows = rows.slice().sort((a, b) => {
        const x = a[key], y = b[key];
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * sign;
      });
    }
    const size = Number(params.get("size") || 50), page = Number(params.get("page") || 1);
    return { rows: rows.slice((page - 1) * size, page * size), total: rows.length, total_capped: false, page, size };
  }

  const source = staticMode
    ? {
        facets: async () => staticFacets(),
        page: async (params) => staticPage(params),
        unit: async (run, uid) => {
          const row = data.rows.find((r) => r.run === run && r.uid === uid);
          return { unit: row, detail: row.detail };
        },
        same: async (key) => ({ rows: data.rows.filter((r) => r.item_key === key) }),
      }
    : {
        facets: () => getJSON("api/facets"),
        page: (params) => getJSON("api/units?" + params.toString()),
        unit: (run, uid) => getJSON("api/unit/" + run + "/" + uid),
        same: (key) => getJSON("api/same?" + new URLSearchParams({ key }).toString()),
      };

  // ---- filters --------------------------------------------------------------------------------------------------
  function fillMenus(meta) {
    for (const name of FACETS) {
      const select = $("f-" + name);
      for (const value of meta.facets[name] || []) select.appendChild(optionOf(value));
    }
    for (const column of meta.sort_columns || []) $("f-sort").appendChild(optionOf(column));
  }

  function optionOf(value) {
    const option = el("option", value);
    option.value = value;
    return option;
  }

  function paramsFromForm() {
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const value = $("f-" + name).value.trim();
      if (value && !(name === "dir" && value === "asc") && !(name === "size" && value === "50")) params.set(name, value);
    }
    return params;
  }

  function formFromParams(params) {
    for (const name of FILTERS) {
      const input = $("f-" + name), value = params.get(name);
      if (value === null) continue;
      if (input.tagName === "SELECT" && ![...input.options].some((o) => o.value === value)) input.appendChild(optionOf(value));
      input.value = value;
    }
    state.page = Number(params.get("page") || 1);
  }

  // ---- the list -------------------------------------------------------------------------------------------------
  function cell(row, text, className) {
    row.appendChild(el("td", text === null || text === undefined ? "" : text, className));
  }

  function renderRows(result) {
    const body = $("rows");
    body.replaceChildren();
    for (const unit of result.rows) {
      const tr = el("tr");
      tr.dataset.run = unit.run;
      tr.dataset.uid = unit.uid;
      cell(tr, unit.task);
      cell(tr, unit.level);
      cell(tr, unit.style);
      cell(tr, unit.model);
      cell(tr, unit.case_name || unit.case_id, "case");
      cell(tr, unit.citation);
      cell(tr, unit.year, "num");
      cell(tr, unit.label, "label-" + unit.label);
      cell(tr, unit.reason, "reason");
      cell(tr, unit.confidence === null ? "" : Number(unit.confidence).toFixed(2), "num");
      cell(tr, unit.answer, "answer");
      tr.addEventListener("click", () => openUnit(unit.run, unit.uid, tr));
      body.appendChild(tr);
    }
    const pages = Math.max(1, Math.ceil(result.total / result.size));
    const total = result.total.toLocaleString("en-US") + (result.total_capped ? "+" : "");
    $("status").textContent = result.total
      ? "page " + result.page + " of " + pages + (result.total_capped ? "+" : "") + " · " + total + " rows"
      : "no rows match";
    $("prev").disabled = result.page <= 1;
    $("next").disabled = result.page >= pages && !result.total_capped;
  }

  async function load() {
    const params = paramsFromForm();
    if (state.page > 1) params.set("page", String(state.page));
    if (!staticMode) history.replaceState(null, "", "?" + params.toString());
    const search = params.get("q");
    if (search && !/[\p{L}\p{N}_]/u.test(search)) {  // the server would refuse it too (400): say so at once
      showError("the search has no word to look for (letters or digits)");
      return;
    }
    try {
      const result = await source.page(params);
      showError("");
      state.total = result.total;
      renderRows(result);
    } catch (error) {
      showError(error.message);
      $("rows").replaceChildren();
      $("status").textContent = "";
    }
  }

  // ---- the detail -----------------------------------------------------------------------------------------------
  function block(parent, title, text) {
    parent.appendChild(el("h3", title));
    parent.appendChild(el("pre", text === null || text === undefined ? "(no answer yet)" : text, "text"));
  }

  function facts(parent, pairs) {
    const list = el("dl", null, "facts");
    for (const [name, value] of pairs) {
      if (value === null || value === undefined || value === "") continue;
      list.appendChild(el("dt", name));
      list.appendChild(el("dd", value));
    }
    parent.appendChild(list);
  }

  async function openUnit(run, uid, tr) {
    for (const row of document.querySelectorAll("#rows tr.selected")) row.classList.remove("selected");
    if (tr) tr.classList.add("selected");
    const panel = $("detail");
    try {
      const { unit, detail } = await source.unit(run, uid);
      panel.replaceChildren();
      panel.appendChild(el("h2", (unit.case_name || unit.case_id || "(no case)") + " · " + unit.task));
      facts(panel, [["model", unit.model], ["court level", unit.level], ["prompt style", unit.style],
        ["citation", unit.citation], ["year", unit.year], ["label", unit.label], ["reason", unit.reason],
        ["confidence", unit.confidence === null ? "" : Number(unit.confidence).toFixed(3)],
        ["request", unit.request_id]]);
      if (detail) {
        block(panel, "Prompt", detail.prompt);
        block(panel, unit.pair ? "Sample 1" : "Answer", detail.answer);
        if (detail.partner) block(panel, "Sample 2", detail.partner.answer);
        if (detail.score && detail.score.reader) {
          facts(panel, [["label read by", detail.score.reader], ["reader's decision", detail.score.reader_decision],
            ["value read", detail.score.reader_value], ["the rules said", detail.score.rules]]);
        }
        if (detail.reader) {
          block(panel, "Reader's reply", detail.reader.answer);
          const folded = el("details");
          folded.appendChild(el("summary", "the reader's prompt"));
          folded.appendChild(el("pre", detail.reader.prompt, "text"));
          panel.appendChild(folded);
        }
        if (detail.judge) {
          block(panel, "Judge's verdict", detail.judge.answer);
          const folded = el("details");
          folded.appendChild(el("summary", "the judge's prompt"));
          folded.appendChild(el("pre", detail.judge.prompt, "text"));
          panel.appendChild(folded);
        }
        block(panel, "Reference scored against", detail.reference);
        if (detail.confidence) {
          facts(panel, Object.entries(detail.confidence).map(([k, v]) => ["confidence " + k, String(v)]));
        }
        if (detail.samples && detail.samples.length) {
          panel.appendChild(el("h3", "Calibration samples (" + detail.samples.length + ")"));
          const list = el("ol", null, "sample-list");
          for (const sample of detail.samples) list.appendChild(el("li", sample.answer === null ? "(no answer yet)" : sample.answer));
          panel.appendChild(list);
        }
      }
      const button = el("button", "Same question, every model");
      button.type = "button";
      button.id = "same";
      button.addEventListener("click", () => showSame(unit.item_key, panel));
      panel.appendChild(button);
      panel.classList.remove("hidden");
      $("layout").classList.remove("no-detail");
    } catch (error) {
      showError(error.message);
    }
  }

  async function showSame(key, panel) {
    const old = document.getElementById("same-view");
    if (old) old.remove();
    const box = el("section", null, "same");
    box.id = "same-view";
    box.appendChild(el("h3", "Same question, every model"));
    const grid = el("div", null, "compare");
    const { rows } = await source.same(key);
    for (const row of rows) {
      const card = el("div");
      card.appendChild(el("strong", row.model));
      card.appendChild(el("div", row.label + (row.reason ? ": " + row.reason : ""), "label-" + row.label));
      card.appendChild(el("pre", (row.detail && row.detail.answer) || row.answer, "text"));
      grid.appendChild(card);
    }
    box.appendChild(grid);
    panel.appendChild(box);
  }

  // ---- wiring ---------------------------------------------------------------------------------------------------
  async function start() {
    try {
      fillMenus(await source.facets());
    } catch (error) {
      showError(error.message);
    }
    formFromParams(new URLSearchParams(location.search));
    $("filters").addEventListener("submit", (event) => {
      event.preventDefault();
      state.page = 1;
      load();
    });
    $("reset").addEventListener("click", () => {
      for (const name of FILTERS) $("f-" + name).value = name === "dir" ? "asc" : name === "size" ? "50" : "";
      state.page = 1;
      load();
    });
    $("prev").addEventListener("click", () => { state.page = Math.max(1, state.page - 1); load(); });
    $("next").addEventListener("click", () => { state.page += 1; load(); });
    await load();
  }

  start();
})();
