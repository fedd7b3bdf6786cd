(function () {
  "use strict";
  var controls = document.getElementById("controls");
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var boxes = Array.prototype.slice.call(controls.querySelectorAll("input[name=status]"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.requirement"));
  var parts = Array.prototype.slice.call(document.querySelectorAll("section.part"));
  var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });

  function apply() {
    var wanted = {};
    boxes.forEach(function (box) { wanted[box.value] = box.checked; });
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var count = 0;
    rows.forEach(function (row, i) {
      var visible = wanted[row.getAttribute("data-status")] === true &&
        words.every(function (word) { return texts[i].indexOf(word) !== -1; });
      row.hidden = !visible;
      if (visible) { count += 1; }
    });
    parts.forEach(function (part) {
      part.hidden = part.querySelector("tr.requirement:not([hidden])") === null;
    });
    shown.textContent = count + " of " + rows.length + " requirements shown";
  }

  function reveal() {
    // a link into a row the filter hides shows every row again, and opens the expanders around its target
    var target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target === null) { return; }
    if (target.closest("[hidden]") !== null) {
      boxes.forEach(function (box) { box.checked = true; });
      search.value = "";
      apply();
    }
    for (var node = target; node !== null; node = node.parentElement) {
      if (node.tagName === "DETAILS") { node.open = true; }
    }
    target.scrollIntoView();
  }

  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  search.addEventListener("input", apply);
  window.addEventListener("hashchange", reveal);
  controls.hidden = false;
  apply();
  reveal();
})();
