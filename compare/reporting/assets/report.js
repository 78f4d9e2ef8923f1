/* report.html: sortable tables, one filter bar for every table, the plots drawn
   from the figures embedded beside this script. No request leaves the page. */
(function () {
  "use strict";

  function cellValue(cell) {
    var raw = cell.getAttribute("data-v");
    var text = raw === null ? cell.textContent.trim() : raw;
    var number = parseFloat(text);
    return text !== "" && isFinite(number) && String(number) !== "NaN" && /^-?[\d.]/.test(text)
      ? { n: number } : { s: text.toLowerCase() };
  }

  function compare(a, b) {
    if (a.n !== undefined && b.n !== undefined) { return a.n - b.n; }
    if (a.n !== undefined) { return -1; }
    if (b.n !== undefined) { return 1; }
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  }

  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var descending = th.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, i) {
      return { row: row, key: cellValue(row.cells[index]), i: i };
    });
    keyed.sort(function (x, y) {
      var order = compare(x.key, y.key);
      return (descending ? -order : order) || x.i - y.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
  }

  function makeSortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.setAttribute("tabindex", "0");
      th.addEventListener("click", function () { sortBy(table, index, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, index, th); }
      });
    });
  }

  var FILTERS = ["engine", "source", "status"];

  function applyFilters() {
    var wanted = {};
    FILTERS.forEach(function (name) {
      var select = document.getElementById("filter-" + name);
      wanted[name] = select ? select.value : "";
    });
    document.querySelectorAll("[data-filterable] tbody tr").forEach(function (row) {
      var show = FILTERS.every(function (name) {
        var have = row.getAttribute("data-" + name);
        if (!wanted[name] || have === null) { return true; }
        return have.split("|").indexOf(wanted[name]) >= 0;
      });
      row.classList.toggle("hidden", !show);
    });
    document.querySelectorAll("[data-filterable]").forEach(function (table) {
      var shown = table.querySelectorAll("tbody tr:not(.hidden)").length;
      var count = document.getElementById(table.id + "-shown");
      if (count) { count.textContent = shown + " of " + table.tBodies[0].rows.length + " rows"; }
    });
  }

  function drawPlots() {
    if (typeof Plotly === "undefined") { return; }
    var figures = JSON.parse(document.getElementById("figures").textContent);
    Object.keys(figures).forEach(function (id) {
      var target = document.getElementById(id);
      if (!target) { return; }
      var figure = figures[id];
      Plotly.newPlot(target, figure.data, figure.layout,
                     { responsive: true, displaylogo: false, showSendToCloud: false,
                       modeBarButtonsToRemove: ["sendDataToCloud"] });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table.sortable").forEach(makeSortable);
    FILTERS.forEach(function (name) {
      var select = document.getElementById("filter-" + name);
      if (select) { select.addEventListener("change", applyFilters); }
    });
    applyFilters();
    drawPlots();
    document.body.setAttribute("data-ready", "1");
  });
})();
