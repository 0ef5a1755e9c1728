(function () {
  "use strict";
  var sections = document.querySelectorAll("main > section.step");
  var navButtons = document.querySelectorAll("#steps-nav button[data-goto]");
  var label = document.getElementById("step-label");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var last = sections.length - 1;
  var current = 0;
  // the controls and the steps list show only where script runs; one step at a time
  document.documentElement.classList.add("script");
  sections.forEach(function (section, index) { section.hidden = index !== 0; });

  // the steps list and scrolled-to charts sit below the sticky header, however tall it is
  var header = document.querySelector("header");
  function fitHeader() {
    document.documentElement.style.setProperty("--header", header.offsetHeight + "px");
  }
  window.addEventListener("resize", fitHeader);
  fitHeader();

  // Each distinct chart picture is kept once, in a <template>; a step's figures get their
  // copy the first time the step is shown. Nothing here builds markup from text.
  function fillCharts(section) {
    section.querySelectorAll("figure.chart[data-svg]").forEach(function (figure) {
      if (figure.querySelector("svg")) { return; }
      var template = document.getElementById("svg-" + figure.getAttribute("data-svg"));
      if (template) { figure.appendChild(template.content.cloneNode(true)); }
    });
  }

  // the figure of the same chart in another step, so a keyboard on a chart stays on it
  function sameChart(section, figure) {
    var chart = figure.getAttribute("data-chart");
    var found = null;
    section.querySelectorAll("figure.chart").forEach(function (candidate) {
      if (!found && candidate.getAttribute("data-chart") === chart) { found = candidate; }
    });
    return found;
  }

  // a chart zoomed in one step stays zoomed, scrolled to the same place, in the next: so a
  // reader can follow one corner of a large chart from step to step
  function zoomsOf(section) {
    var zooms = {};
    section.querySelectorAll("figure.chart.zoomed").forEach(function (figure) {
      zooms[figure.getAttribute("data-chart")] = [figure.scrollLeft, figure.scrollTop];
    });
    return zooms;
  }
  function applyZooms(section, zooms) {
    section.querySelectorAll("figure.chart").forEach(function (figure) {
      var kept = zooms[figure.getAttribute("data-chart")];
      figure.classList.toggle("zoomed", Boolean(kept));
      if (kept) { figure.scrollLeft = kept[0]; figure.scrollTop = kept[1]; }
    });
  }

  function show(index) {
    if (last < 0) { return; }
    index = Math.max(0, Math.min(last, index));
    var focused = document.activeElement;
    var onChart = focused && focused.matches && focused.matches("figure.chart");
    var onNav = focused && focused.matches && focused.matches("#steps-nav button");
    var zooms = zoomsOf(sections[current]);
    sections[current].hidden = true;
    navButtons[current].removeAttribute("aria-current");
    navButtons[current].tabIndex = -1;
    current = index;
    fillCharts(sections[current]);
    sections[current].hidden = false;
    applyZooms(sections[current], zooms);
    // the steps list is one stop for Tab (its current step), not one per step
    navButtons[current].setAttribute("aria-current", "step");
    navButtons[current].tabIndex = 0;
    if (onNav) { navButtons[current].focus(); }
    label.textContent = "Step " + sections[current].getAttribute("data-step") +
      " of " + sections[last].getAttribute("data-step");
    prev.disabled = current === 0;
    next.disabled = current === last;
    // a button that has just become disabled would drop the keyboard to the page's start
    if (focused === prev && prev.disabled && !next.disabled) { next.focus(); }
    if (focused === next && next.disabled && !prev.disabled) { prev.focus(); }
    document.body.setAttribute("data-current", String(current));
    if (onChart) {
      var again = sameChart(sections[current], focused);
      if (again) { again.focus(); }
    }
    if (location.hash !== "#step-" + current) {
      // remember the step in the address, so a reload or a shared link opens it
      try { history.replaceState(null, "", "#step-" + current); } catch (ignored) { }
    }
  }

  prev.addEventListener("click", function () { show(current - 1); });
  next.addEventListener("click", function () { show(current + 1); });
  navButtons.forEach(function (button) {
    button.addEventListener("click", function () {
      show(Number(button.getAttribute("data-goto")));
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    // N and P step from anywhere, a zoomed chart included (Caps Lock or not)
    var letter = event.key.length === 1 ? event.key.toLowerCase() : "";
    if (letter === "n" || letter === "p") {
      show(current + (letter === "n" ? 1 : -1));
      event.preventDefault();
      return;
    }
    var on = document.activeElement;
    if ((event.key === "ArrowDown" || event.key === "ArrowUp") && on && on.matches &&
        on.matches("#steps-nav button")) {
      show(current + (event.key === "ArrowDown" ? 1 : -1));
      event.preventDefault();
      return;
    }
    if ((event.key === "ArrowRight" || event.key === "ArrowLeft") && on && on.matches &&
        on.matches("figure.chart.zoomed, section.step .text") &&
        on.scrollWidth > on.clientWidth) {
      return;  // left to the browser: they scroll the zoomed chart or the wide state table
    }
    if (event.key === "ArrowRight") { show(current + 1); }
    else if (event.key === "ArrowLeft") { show(current - 1); }
    else if (event.key === "Home") { show(0); }
    else if (event.key === "End") { show(last); }
    else { return; }
    event.preventDefault();
  });
  var main = document.querySelector("main");
  main.addEventListener("click", function (event) {
    var figure = event.target.closest("figure.chart");
    if (figure) { figure.classList.toggle("zoomed"); }
  });
  // Enter or Space on a focused chart zooms it, as a click does
  main.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (event.key !== "Enter" && event.key !== " ") { return; }
    if (!event.target.matches("figure.chart")) { return; }
    event.target.classList.toggle("zoomed");
    event.preventDefault();  // Space would scroll the page too
  });

  function fromAddress() {
    var match = /^#step-(\d+)$/.exec(location.hash);
    return match ? Number(match[1]) : 0;
  }
  window.addEventListener("hashchange", function () { show(fromAddress()); });
  show(fromAddress());
}());
