/* The report works without this script. It adds: expand/collapse all,
   filtering the steps by agent or to the ones with a problem, and opening
   the step or agent a link points at. */
(function () {
  "use strict";
  var steps = Array.prototype.slice.call(document.querySelectorAll("details.step"));
  var controls = document.getElementById("step-controls");
  var agent = document.getElementById("agent-filter");
  var problems = document.getElementById("problem-filter");

  function filter() {
    var a = agent ? agent.value : "";
    var p = problems ? problems.checked : false;
    steps.forEach(function (s) {
      s.hidden = (a !== "" && s.getAttribute("data-agent") !== a) ||
        (p && !s.hasAttribute("data-problem"));
    });
  }

  // openTarget opens the element a link points at, when it is a details
  // element, and every details element around it (an agent of a group is
  // a name inside its group's block).
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (!target) {
      return;
    }
    for (var el = target; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") {
        el.hidden = false;
        el.open = true;
      }
    }
    target.scrollIntoView({block: "start"});
  }

  if (controls) {
    controls.hidden = false;
    controls.addEventListener("click", function (e) {
      var open = e.target.getAttribute && e.target.getAttribute("data-open");
      if (open === null || open === undefined) {
        return;
      }
      steps.forEach(function (s) {
        if (!s.hidden) {
          s.open = open === "true";
        }
      });
    });
  }
  if (agent) {
    agent.addEventListener("change", filter);
  }
  if (problems) {
    problems.addEventListener("change", filter);
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
