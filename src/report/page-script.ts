/**
 * The report's only script, inlined into the page (plain browser JavaScript, no dependencies):
 *
 * - chart marks get an SVG <title> from the description Vega wrote into their aria-label, so
 *   hovering a point or bar shows its values;
 * - a collapsed diff is filled when first opened, from the page's JSON block of rendered patches
 *   (each distinct patch is in it once, however many candidates share it), and the lines its
 *   findings name are marked;
 * - the group filters (task, finding kind, dropped groups) hide the groups that do not match.
 *
 * Everything is optional: a page without filters or diffs runs only the part it needs.
 */
export const PAGE_SCRIPT = `(() => {
  "use strict";
  const all = (selector, root) => Array.from((root || document).querySelectorAll(selector));
  const SVG = "http://www.w3.org/2000/svg";
  for (const mark of all("figure.chart [role=graphics-symbol][aria-label]")) {
    const title = document.createElementNS(SVG, "title");
    title.textContent = mark.getAttribute("aria-label");
    mark.appendChild(title);
  }

  let patches;
  for (const details of all("details.diff")) {
    details.addEventListener("toggle", () => {
      if (!details.open || details.dataset.filled) return;
      patches = patches || JSON.parse(document.getElementById("patches").textContent);
      const body = details.querySelector(".diff-body");
      body.innerHTML = patches[details.dataset.patch];
      for (const mark of JSON.parse(details.dataset.marks || "[]")) {
        const file = all(".diff-file", body).find((f) => f.dataset.file === mark[0]);
        if (!file) continue;
        for (const row of all("tr[data-line]", file)) {
          if (row.dataset.line === String(mark[1])) row.classList.add("marked");
        }
      }
      details.dataset.filled = "1";
    });
  }

  const task = document.getElementById("filter-task");
  const kind = document.getElementById("filter-kind");
  const dropped = document.getElementById("filter-dropped");
  const count = document.getElementById("filter-count");
  if (!task || !kind || !dropped || !count) return;
  const groups = all("article.group");
  const apply = () => {
    let shown = 0;
    for (const group of groups) {
      const kinds = (group.dataset.kinds || "").split(" ");
      const visible =
        (task.value === "" || group.dataset.task === task.value) &&
        (kind.value === "" || (kind.value === "none" ? group.dataset.kinds === "" : kinds.includes(kind.value))) &&
        (dropped.checked || group.dataset.kept === "1");
      group.hidden = !visible;
      if (visible) shown++;
    }
    count.textContent = shown + " of " + groups.length + " groups shown";
  };
  for (const input of [task, kind, dropped]) input.addEventListener("change", apply);
  apply();
})();`;
