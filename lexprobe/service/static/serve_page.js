// lexprobe serve's page: send a dropped or chosen document to api/report, then show its text with every citation
// and quotation highlighted by verdict, the evidence of the one clicked beside it, and the downloads. Every piece
// of the answer reaches the page as a DOM text node (textContent), never as HTML.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let urls = [];
  let checkedFile = null; // the document shown, sent again to api/annotated.docx when its DOCX is asked for

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function status(text, error) {
    $("status").textContent = text;
    $("status").className = error ? "error" : "";
  }

  function caseLabel(c) {
    if (!c) return "";
    return [c.name, c.citation, c.year ? "(" + c.year + ")" : ""].filter(Boolean).join(" ");
  }

  function showCitation(item) {
    const box = $("detail");
    box.replaceChildren();
    box.append(element("span", item.verdict, "badge v-" + item.verdict), element("p", item.text));
    if (item.case) box.append(element("p", "Database case: " + caseLabel(item.case)));
    box.append(element("p", item.reason));
    for (const note of item.notes || []) box.append(element("p", "note: " + note, "note"));
  }

  function showQuotation(item) {
    const box = $("detail");
    box.replaceChildren();
    box.append(element("span", "quotation " + item.verdict, "badge qv-" + item.verdict));
    box.append(element("blockquote", item.text), element("p", item.reason));
    if (item.page !== null && item.page !== undefined) box.append(element("p", "page " + item.page, "note"));
    const evidence = item.evidence;
    if (evidence && evidence.passage) {
      box.append(element("h3", "Passage in the opinion"), element("blockquote", evidence.passage));
      const who = [evidence.case, evidence.opinion_type, evidence.author].filter(Boolean).join(", ");
      if (who) box.append(element("p", who, "note"));
    }
  }

  function select(mark, show, item) {
    for (const old of document.querySelectorAll("mark.selected")) old.classList.remove("selected");
    if (mark) {
      mark.classList.add("selected");
      mark.scrollIntoView({ block: "nearest" });
    }
    show(item);
  }

  function marksOf(result, first, count) {
    // [start, end, kind, item] of one document's citations and quotations, in text order
    const marks = [];
    result.citations.slice(first, first + count).forEach((item, i) =>
      marks.push({ span: item.span, kind: "c", index: first + i, item: item }));
    result.quotations.forEach((item, i) => {
      if (item.citation >= first && item.citation < first + count)
        marks.push({ span: item.span, kind: "q", index: i, item: item });
    });
    return marks.sort((a, b) => a.span[0] - b.span[0] || a.span[1] - b.span[1]);
  }

  function renderText(text, marks) {
    // spans count Unicode code points (Python's indices), so the text is sliced as code points
    const chars = Array.from(text);
    const doc = $("doc");
    const byKey = {};
    doc.replaceChildren();
    let position = 0;
    for (const m of marks) {
      const [start, end] = m.span;
      if (start < position || end <= start) continue; // overlapping: listed in the findings only
      doc.append(document.createTextNode(chars.slice(position, start).join("")));
      const mark = element("mark", chars.slice(start, end).join(""),
        m.kind === "c" ? "v-" + m.item.verdict : "q qv-" + m.item.verdict);
      mark.id = m.kind + m.index;
      mark.dataset.verdict = m.item.verdict;
      mark.title = m.item.verdict + ": " + m.item.reason;
      const show = m.kind === "c" ? showCitation : showQuotation;
      mark.addEventListener("click", () => select(mark, show, m.item));
      doc.append(mark);
      byKey[mark.id] = mark;
      position = end;
    }
    doc.append(document.createTextNode(chars.slice(position).join("")));
    return byKey;
  }

  function renderFindings(marks, byKey) {
    const list = $("findings");
    list.replaceChildren();
    for (const m of marks) {
      const quote = m.kind === "q";
      const li = element("li", null, quote ? "finding quotation" : "finding citation");
      li.dataset.verdict = m.item.verdict;
      li.append(element("span", (quote ? "quotation " : "") + m.item.verdict, (quote ? "badge qv-" : "badge v-") + m.item.verdict));
      const shown = m.item.text.length > 120 ? m.item.text.slice(0, 119) + "…" : m.item.text;
      li.append(document.createTextNode(" " + shown));
      li.addEventListener("click", () => select(byKey[m.kind + m.index], quote ? showQuotation : showCitation, m.item));
      list.append(li);
    }
  }

  function offer(id, content, type, name) {
    const link = $(id);
    const url = URL.createObjectURL(new Blob([content], { type: type }));
    urls.push(url);
    link.href = url;
    link.download = name;
  }

  function show(answer) {
    for (const url of urls) URL.revokeObjectURL(url);
    urls = [];
    const documentInfo = answer.documents[0];
    const file = answer.result.summary.files[0];
    const marks = marksOf(answer.result, file.first, file.count);
    $("doc-name").textContent = documentInfo.path;
    renderFindings(marks, renderText(documentInfo.text, marks));
    const stem = documentInfo.path.replace(/\.[^.]*$/, "") || "check";
    offer("download-json", JSON.stringify(answer.result, null, 2), "application/json", stem + "-check.json");
    offer("download-html", answer.html, "text/html", stem + "-check.html");
    const docxLink = $("download-docx");
    docxLink.href = "#";
    docxLink.download = stem + "-check.docx";
    delete docxLink.dataset.ready;
    $("downloads").hidden = false;
    $("result").hidden = false;
    const counts = ["verified", "mismatch", "not_found", "unverifiable"].map((v) => file[v] + " " + v).join(", ");
    status(documentInfo.path + ": " + file.count + " citations (" + counts + "), " + marks.filter((m) => m.kind === "q").length + " quotations.", false);
  }

  async function fetchDocx(event) {
    // the annotated DOCX is made on the server when asked for: the same document checked again, as Word
    const link = $("download-docx");
    if (link.dataset.ready) return; // the blob is there: the browser downloads it
    event.preventDefault();
    if (!checkedFile || link.dataset.busy) return;
    link.dataset.busy = "1";
    const body = new FormData();
    body.append("file", checkedFile, checkedFile.name);
    try {
      const response = await fetch("api/annotated.docx", { method: "POST", body: body });
      if (!response.ok) {
        const answer = await response.json();
        status(checkedFile.name + ": " + (answer.error || response.statusText), true);
        return;
      }
      const url = URL.createObjectURL(await response.blob());
      urls.push(url);
      link.href = url;
      link.dataset.ready = "1";
      link.click();
    } catch (error) {
      status(checkedFile.name + ": the DOCX failed (" + error + ")", true);
    } finally {
      delete link.dataset.busy;
    }
  }

  async function send(file) {
    checkedFile = file;
    const body = new FormData();
    body.append("file", file, file.name);
    status("Checking " + file.name + "…", false);
    $("result").hidden = true;
    $("downloads").hidden = true;
    try {
      const response = await fetch("api/report", { method: "POST", body: body });
      const answer = await response.json();
      if (!response.ok) {
        status(file.name + ": " + (answer.error || response.statusText), true);
        return;
      }
      show(answer);
    } catch (error) {
      status(file.name + ": the check failed (" + error + ")", true);
    }
  }

  $("download-docx").addEventListener("click", fetchDocx);
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    if (event.dataTransfer.files.length) send(event.dataTransfer.files[0]);
  });
  $("file").addEventListener("change", () => { if ($("file").files.length) send($("file").files[0]); });
})();
