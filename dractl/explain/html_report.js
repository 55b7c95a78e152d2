// dractl explain -o html: draws the report from the JSON in #dractl-data (see
// dractl/explain/html_report.py for its shape). Plain DOM and SVG, no libraries, no network.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("dractl-data").textContent);
  var S = data.strings;
  var TOKEN = "\u0000";
  var SVG = "http://www.w3.org/2000/svg";
  var GAP = 12, LABEL = 320, MAX_ROWS = 400, MAX_NAMES = 30, MAX_ALLOCATIONS = 200, MAX_STATUS = 240;
  // Device states, then the scheduler plugins that rejected nodes before the device search
  // (a cell of such a node has its plugin's colour).
  var kinds = data.categories.concat(data.plugins);
  var categories = {};
  kinds.forEach(function (c) { categories[c.key] = c; });
  // Cells name their category by index in the data; by key from here on.
  var allUnits = data.units.concat(data.workloads.map(function (w) { return w.unit; }).filter(Boolean));
  allUnits.forEach(function (unit) {
    unit.groups.forEach(function (g) { g.cells.forEach(function (c) { c[1] = kinds[c[1]].key; }); });
    unit.rows.forEach(function (r) { r.cells.forEach(function (c) { c[1] = kinds[c[1]].key; }); });
  });
  var RESULTS = { allocated: "allocated", unschedulable: "unschedulable", error: "error" };
  var MARKS = { allocated: "\u2713", unschedulable: "\u2717", error: "!" };

  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      if (attrs[k] === null || attrs[k] === undefined) return;
      if (k === "text") node.textContent = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
  }
  function append(node, child) {
    if (child === null || child === undefined) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  // A text of a group, shown for one of its nodes: the placeholder becomes the node's name.
  function text(group, index, node) {
    var s = S[index];
    return group.literal ? s : s.split(TOKEN).join(node);
  }
  // The same structure with the placeholder in every string (and key) put back.
  function filled(group, value, node) {
    if (group.literal) return value;
    if (typeof value === "string") return value.split(TOKEN).join(node);
    if (Array.isArray(value)) return value.map(function (v) { return filled(group, v, node); });
    if (value && typeof value === "object") {
      var out = {};
      Object.keys(value).forEach(function (k) { out[filled(group, k, node)] = filled(group, value[k], node); });
      return out;
    }
    return value;
  }

  // YAML for JSON data, as kubectl writes it (lists not indented under their key). Strings
  // that YAML could read as something else are double-quoted (JSON escapes are YAML's).
  var PLAIN = /^[A-Za-z][A-Za-z0-9_.\/-]*$/;
  var NOT_PLAIN = /^(y|yes|n|no|true|false|on|off|null)$/i;
  function isMap(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function scalar(v) {
    if (v === null || v === undefined) return "null";
    if (typeof v !== "string") return String(v);
    if (PLAIN.test(v) && !NOT_PLAIN.test(v)) return v;
    return JSON.stringify(v).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  }
  function nested(v) { return (Array.isArray(v) && v.length > 0) || (isMap(v) && Object.keys(v).length > 0); }
  function inline(v) { return Array.isArray(v) ? "[]" : isMap(v) ? "{}" : scalar(v); }
  function yamlLines(value, indent) {
    var lines = [];
    if (Array.isArray(value)) {
      value.forEach(function (item) {
        if (!nested(item)) { lines.push(indent + "- " + inline(item)); return; }
        var inner = yamlLines(item, indent + "  ");
        inner[0] = indent + "- " + inner[0].slice(indent.length + 2);
        lines = lines.concat(inner);
      });
    } else {
      Object.keys(value).forEach(function (k) {
        var v = value[k];
        if (!nested(v)) { lines.push(indent + scalar(k) + ": " + inline(v)); return; }
        lines.push(indent + scalar(k) + ":");
        lines = lines.concat(yamlLines(v, Array.isArray(v) ? indent : indent + "  "));
      });
    }
    return lines;
  }
  function toYaml(value) { return nested(value) ? yamlLines(value, "").join("\n") + "\n" : inline(value) + "\n"; }

  function shown(s) { return s.split(TOKEN).join("\u2039node\u203a"); }
  // The scheduler's status of a group's node ("NodeUnschedulable: node(s) were unschedulable"),
  // its detail (dractl's words) apart; null for a node that passed.
  function groupStatus(group) { return group.status === undefined ? null : data.statuses[group.status]; }
  function statusText(group, node) {
    var st = groupStatus(group);
    if (!st) return null;
    return (st.plugin || "scheduler") + (st.phase === "PreFilter" ? " (PreFilter)" : "") + ": " +
      filled(group, st.reasons, node).join(", ");
  }
  function statusDetail(group, node) {
    var st = groupStatus(group);
    return st && st.detail ? filled(group, st.detail, node) : null;
  }
  // The legend entry of the plugin a group's nodes are coloured by, or null.
  function rejectedBy(group) {
    var st = groupStatus(group);
    return st && st.rejectedBy ? categories[st.rejectedBy] : null;
  }
  function number(n) { return n.toLocaleString("en-US"); }
  function plural(n, word) { return number(n) + " " + word + (n === 1 ? "" : "s"); }
  function deviceId(group, column, node) {
    var id = [column.driver, column.pool, column.device].join("/");
    return group.literal ? id : id.split(TOKEN).join(node);
  }

  // Node name filter: a substring, or a glob with * and ?; case-insensitive.
  function nameMatcher(pattern) {
    pattern = pattern.trim().toLowerCase();
    if (!pattern) return null;
    if (/[*?]/.test(pattern)) {
      var re = new RegExp("^" + pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$");
      return function (name) { return re.test(name.toLowerCase()); };
    }
    return function (name) { return name.toLowerCase().indexOf(pattern) >= 0; };
  }

  function header() {
    var notes = data.notes.length ? el("ul", { class: "notes" }, data.notes.map(function (n) { return el("li", { text: n }); })) : null;
    return [
      el("h1", { text: "dractl explain" }),
      el("div", { class: "meta", text: "Kubernetes " + data.kubernetesVersion + ", allocator implementation " +
        data.implementation + " \u00b7 " + data.generator }),
      notes,
    ];
  }

  function Unit(unit, index) {
    this.unit = unit;
    this.index = index;
    this.filterName = null;
    this.filterReason = "";
    this.selectedRow = null;
    this.tooltip = null;
    this.firstShared = unit.columns.findIndex(function (c) { return c.band === "shared"; });
    // Larger cells while there is room for them.
    this.cell = unit.columns.length <= 40 ? 22 : unit.columns.length <= 120 ? 16 : 12;
    // Room for the slanted column names above the cells.
    var longest = unit.columns.reduce(function (n, c) {
      return Math.max(n, (c.band === "shared" ? c.pool.length + 1 : 0) + c.device.length);
    }, 0);
    this.header = Math.min(170, 40 + Math.round(longest * 5.5));
    this.groupCats = unit.groups.map(function (g) {
      var set = {};
      g.cells.forEach(function (c) { set[c[1]] = (set[c[1]] || 0) + 1; });
      return set;
    });
  }

  Unit.prototype.matchingNodes = function (groupIndex) {
    var group = this.unit.groups[groupIndex];
    var reason = this.filterReason;
    if (reason) {
      var kind = reason.split(":")[0], value = reason.slice(kind.length + 1);
      if (kind === "result" && group.result !== value) return [];
      if (kind === "category" && !this.groupCats[groupIndex][value]) return [];
      if (kind === "verdict") {
        var plugin = rejectedBy(group);
        if (!plugin || plugin.key !== value) return [];
      }
    }
    return this.filterName ? group.nodes.filter(this.filterName) : group.nodes;
  };

  Unit.prototype.render = function () {
    var u = this.unit, self = this;
    var section = el("section", { class: "unit", "data-unit": this.index, "data-title": u.title });
    section.appendChild(el("h2", { text: u.title }));
    section.appendChild(this.summary());
    var nameInput = el("input", { type: "search", class: "filter-name", placeholder: "filter nodes by name (node-1*, gpu)" });
    var reasonSelect = el("select", { class: "filter-reason" });
    reasonSelect.appendChild(el("option", { value: "", text: "every outcome and device state" }));
    Object.keys(RESULTS).forEach(function (r) {
      if (u.counts[r]) reasonSelect.appendChild(el("option", { value: "result:" + r, text: "nodes: " + RESULTS[r] }));
    });
    this.present = {};
    data.plugins.forEach(function (p) {
      var present = self.present[p.key] = u.groups.some(function (g) { var r = rejectedBy(g); return r && r.key === p.key; });
      if (present) reasonSelect.appendChild(el("option", { value: "verdict:" + p.key, text: "nodes: " + p.label }));
    });
    data.categories.forEach(function (c) {
      var present = self.present[c.key] = u.groups.some(function (g, i) { return self.groupCats[i][c.key]; });
      if (present) reasonSelect.appendChild(el("option", { value: "category:" + c.key, text: "devices: " + c.label }));
    });
    this.matches = el("span", { class: "matches muted" });
    section.appendChild(el("div", { class: "controls" }, nameInput, reasonSelect, this.matches));
    this.legend = el("ul", { class: "legend" });
    section.appendChild(this.legend);
    this.picture = el("div", { class: "picture" });
    section.appendChild(this.picture);
    this.more = el("div", { class: "more" });
    section.appendChild(this.more);
    this.details = el("div", { class: "details" });
    section.appendChild(this.details);
    this.allocations = el("section", { class: "allocations" });
    section.appendChild(this.allocations);
    this.tooltip = el("div", { class: "tooltip" });
    section.appendChild(this.tooltip);
    nameInput.addEventListener("input", function () { self.filterName = nameMatcher(nameInput.value); self.update(); });
    reasonSelect.addEventListener("change", function () { self.filterReason = reasonSelect.value; self.update(); });
    this.reasonSelect = reasonSelect;
    this.update();
    return section;
  };

  Unit.prototype.summary = function () {
    var u = this.unit;
    var claims = u.claims.map(function (c) { return c[0] + (c[1] ? " (from template " + c[1] + ")" : ""); })
      .concat(u.allocatedClaims.map(function (c) { return c + " (allocated)"; }));
    var counts = el("dd", null, Object.keys(RESULTS).map(function (r) {
      return el("span", { class: "count", "data-result": r, "data-count": u.counts[r] || 0, text: number(u.counts[r] || 0) + " " + r });
    }), u.timedOut ? el("span", { class: "muted", text: "(" + u.timedOut + " timed out)" }) : null);
    var devices = u.pick ? [
      el("ul", null, u.pick.requests.map(function (r) {
        return el("li", null, r.claim + " request " + r.request + ": ", el("code", { text: r.devices.join(", ") }));
      })),
      u.pick.orderAmbiguous ? el("div", { class: "muted", text: "The scheduler visits pools in an unspecified order here and may pick other, equally valid devices." }) : null,
    ] : null;
    var list = el("dl", { class: "summary" },
      el("dt", { text: "claims" }), el("dd", { class: "claims", text: claims.join(", ") || "none" }),
      el("dt", { text: "nodes" }), counts);
    if (u.scheduler) {
      // A Pod: kube-scheduler's answer, as the text output gives it.
      append(list, [el("dt", { text: "scheduler" }), this.schedulerAnswer(devices)]);
      if (u.scheduler.specialClaim) append(list, [el("dt", { text: "extended resources" }), this.specialClaim(u.scheduler.specialClaim)]);
      return list;
    }
    var pick;
    if (u.pick) {
      pick = el("dd", { class: "pick" }, "node ", el("code", { text: u.pick.node }),
        u.counts.allocated > 1 ? el("span", { class: "muted", text: " (first of " + number(u.counts.allocated) +
          " nodes that can; the scheduler's scoring chooses among them)" }) : null, devices);
    } else {
      pick = el("dd", { class: "pick", text: "no node can allocate " + (u.claims.length === 1 ? "the claim" : "all claims") });
    }
    append(list, [el("dt", { text: "would pick" }), pick]);
    return list;
  };

  // The node the scheduler selects (and the devices it gets there), or the FailedScheduling
  // message word for word, or the error that ends the attempt.
  Unit.prototype.schedulerAnswer = function (devices) {
    var s = this.unit.scheduler;
    if (s.preEnqueue) {
      return el("dd", { class: "scheduler", "data-outcome": "pre-enqueue" }, "the Pod is not scheduled: " +
        (s.preEnqueue.plugin || "scheduler") + " PreEnqueue: ", el("span", { class: "scheduler-message", text: s.preEnqueue.reasons.join(", ") }),
        s.preEnqueue.detail ? el("div", { class: "muted", text: s.preEnqueue.detail }) : null);
    }
    if (s.selectedNode !== null) {
      var others = this.unit.counts.allocated - 1;
      return el("dd", { class: "scheduler pick", "data-outcome": "selected" }, "selects node ", el("code", { class: "selected-node", text: s.selectedNode }),
        others > 0 ? el("span", { class: "muted", text: " (of " + number(others + 1) + " nodes that pass its filters: the highest " +
          "DynamicResources score, then explain's order; dractl computes no other score)" }) : null, devices);
    }
    if (s.error !== null) {
      return el("dd", { class: "scheduler", "data-outcome": "error" }, "error (FailedScheduling, reason SchedulerError): ",
        el("span", { class: "scheduler-message", text: s.error }));
    }
    if (s.message !== null) {
      return el("dd", { class: "scheduler", "data-outcome": "failed" }, "FailedScheduling: ",
        el("span", { class: "scheduler-message", text: s.message }));
    }
    return el("dd", { class: "scheduler muted", "data-outcome": "none", text: s.profile === null ?
      "no profile of the scheduler configuration serves the Pod's schedulerName: kube-scheduler leaves it alone" : "no verdict" });
  };

  // The claim the scheduler makes for the Pod's extended resources: its requests, which
  // container's resource each serves, and its allocation on the selected node.
  Unit.prototype.specialClaim = function (claim) {
    var requests = claim.requests.map(function (r) {
      var exactly = r.exactly || {};
      var count = exactly.allocationMode === "All" ? "all devices" : String(exactly.count === undefined ? 1 : exactly.count);
      return el("li", { class: "special-request" }, el("code", { text: r.name }), ": " + count + " of class " + exactly.deviceClassName);
    });
    var mappings = claim.requestMappings.map(function (m) {
      return el("li", { class: "special-mapping" }, "container " + m.containerName + " ", el("code", { text: m.resourceName }),
        " \u2192 request ", el("code", { text: m.requestName }));
    });
    return el("dd", { class: "special-claim" },
      "claim ", el("code", { text: (claim.namespace ? claim.namespace + "/" : "") + claim.generateName + "\u2026" }),
      el("span", { class: "muted", text: " (made by the scheduler for the Pod; its name gets a random suffix)" }),
      el("ul", null, requests, mappings),
      claim.allocation ? el("details", { class: "special-allocation" },
        el("summary", { text: "its AllocationResult on " + this.unit.scheduler.selectedNode }),
        el("pre", { class: "yaml", text: toYaml(claim.allocation) })) : null);
  };

  Unit.prototype.update = function () {
    var u = this.unit, self = this;
    var rows = [], nodes = 0, cellCounts = {}, pluginNodes = {};
    u.rows.forEach(function (row, rowIndex) {
      var members = [], count = 0;
      row.groups.forEach(function (g) {
        var matching = self.matchingNodes(g);
        if (matching.length) { members.push({ group: g, nodes: matching }); count += matching.length; }
      });
      if (!count) return;
      nodes += count;
      members.forEach(function (m) {
        u.groups[m.group].cells.forEach(function (c) { cellCounts[c[1]] = (cellCounts[c[1]] || 0) + m.nodes.length; });
        var plugin = rejectedBy(u.groups[m.group]);
        if (plugin) pluginNodes[plugin.key] = (pluginNodes[plugin.key] || 0) + m.nodes.length;
      });
      rows.push({ row: row, index: rowIndex, members: members, count: count });
    });
    this.matches.textContent = plural(nodes, "node") + " of " + number(u.nodes) + " in " + plural(rows.length, "row");
    this.drawLegend(cellCounts, pluginNodes);
    this.drawPicture(rows);
    this.drawAllocations();
    var selected = rows.filter(function (r) { return r.index === self.selectedRow; })[0];
    if (selected) this.showRow(selected); else this.details.textContent = "";
  };

  Unit.prototype.drawLegend = function (cellCounts, pluginNodes) {
    var self = this;
    this.legend.textContent = "";
    // Nodes rejected by a plugin before the device search: counted in nodes.
    data.plugins.forEach(function (p) {
      if (!self.present[p.key]) return;
      var count = pluginNodes[p.key] || 0;
      var item = el("li", { class: "legend-item plugin" + (self.filterReason === "verdict:" + p.key ? " active" : ""),
        "data-category": p.key, "data-plugin": p.plugin, "data-count": count, title: "show only nodes " + p.label },
        el("span", { class: "swatch", style: "background:" + p.colour }), p.label + " (" + plural(count, "node") + ")");
      item.addEventListener("click", function () {
        var value = self.filterReason === "verdict:" + p.key ? "" : "verdict:" + p.key;
        self.filterReason = value;
        self.reasonSelect.value = value;
        self.update();
      });
      self.legend.appendChild(item);
    });
    data.categories.forEach(function (c) {
      if (!self.present[c.key]) return;
      var count = cellCounts[c.key] || 0;
      var item = el("li", { class: "legend-item" + (self.filterReason === "category:" + c.key ? " active" : ""),
        "data-category": c.key, "data-count": count, title: "show only nodes with devices: " + c.label },
        el("span", { class: "swatch", style: "background:" + c.colour }), c.label + " (" + number(count) + ")");
      item.addEventListener("click", function () {
        var value = self.filterReason === "category:" + c.key ? "" : "category:" + c.key;
        self.filterReason = value;
        self.reasonSelect.value = value;
        self.update();
      });
      self.legend.appendChild(item);
    });
  };

  Unit.prototype.columnX = function (index) {
    return LABEL + index * this.cell + (this.firstShared >= 0 && index >= this.firstShared ? GAP : 0);
  };

  Unit.prototype.drawPicture = function (rows) {
    var u = this.unit, self = this;
    var drawn = rows.slice(0, MAX_ROWS);
    // A row coloured by a plugin shows its status after the cells: room for the longest.
    var statusX = u.columns.length ? this.columnX(u.columns.length) + 10 : LABEL;
    var statuses = drawn.map(function (r) {
      var group = u.groups[r.members[0].group], node = r.members[0].nodes[0];
      var plugin = rejectedBy(group);
      if (!plugin) return null;
      // The plugin and its reasons in full; dractl's detail cut short if it is long (the
      // row's tooltip and its details have it all).
      var reasons = statusText(group, node), detail = statusDetail(group, node);
      var full = reasons + (detail ? " (" + detail + ")" : "");
      var room = Math.max(40, MAX_STATUS - reasons.length);
      var shortDetail = detail && detail.length > room ? detail.slice(0, room - 1) + "\u2026" : detail;
      return { plugin: plugin, full: full, text: reasons + (detail ? " (" + shortDetail + ")" : "") };
    });
    var longest = statuses.reduce(function (n, s) { return s ? Math.max(n, s.text.length) : n; }, 0);
    var width = Math.max(this.columnX(u.columns.length) + self.cell + 8, LABEL + 360,
      longest ? statusX + self.cell + 8 + Math.ceil(longest * 6.2) : 0);
    var height = self.header + drawn.length * self.cell + 8;
    var picture = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, class: "grid" });
    var firstShared = this.firstShared;
    if (firstShared !== 0 && u.columns.length) {
      picture.appendChild(svg("text", { class: "band-label", x: LABEL, y: 12, text: "node-local devices" }));
    }
    if (firstShared >= 0) {
      // One line lower than the other band's name, which may be wider than its band.
      picture.appendChild(svg("text", { class: "band-label", x: this.columnX(firstShared), y: firstShared ? 26 : 12, text: "network-attached devices" }));
    }
    u.columns.forEach(function (column, i) {
      var x = self.columnX(i) + self.cell / 2 + 3, y = self.header - 4;
      var label = column.band === "shared" ? column.pool + "/" + column.device : column.device;
      picture.appendChild(svg("text", { class: "column-label", "data-col": i, x: x, y: y, transform: "rotate(-60 " + x + " " + y + ")" },
        shown(label), svg("title", { text: shown(column.driver + "/" + column.pool + "/" + column.device) })));
    });
    drawn.forEach(function (r, position) {
      var y = self.header + position * self.cell;
      var first = r.members[0].nodes[0];
      var names = [];
      r.members.forEach(function (m) { m.nodes.forEach(function (n) { if (names.length < 3) names.push(n); }); });
      var label = r.count === 1 ? first : number(r.count) + " nodes: " + names.join(", ") + (r.count > 3 ? ", \u2026" : "");
      var g = svg("g", { class: "row" + (r.index === self.selectedRow ? " selected" : ""), "data-row": r.index,
        "data-result": r.row.result, "data-nodes": r.count });
      g.appendChild(svg("rect", { class: "row-bg", x: 0, y: y, width: width, height: self.cell }));
      g.appendChild(svg("text", { class: "mark-" + r.row.result, x: 4, y: y + self.cell - 3, text: MARKS[r.row.result] }));
      g.appendChild(svg("text", { class: "row-label", x: 18, y: y + self.cell - 3, text: label.length > 48 ? label.slice(0, 47) + "\u2026" : label },
        svg("title", { text: label })));
      var status = statuses[position];
      if (status) {
        g.setAttribute("data-plugin", status.plugin.plugin);
        var x = statusX;
        g.appendChild(svg("rect", { class: "status-swatch", x: x + 1, y: y + 1, width: self.cell - 2, height: self.cell - 2,
          fill: status.plugin.colour, "data-category": status.plugin.key }));
        g.appendChild(svg("text", { class: "row-status", x: x + self.cell + 4, y: y + self.cell - 4, text: status.text },
          svg("title", { text: status.plugin.label + ": " + status.full })));
      } else if (!r.row.cells.length) {
        g.appendChild(svg("text", { class: "muted no-devices", x: LABEL, y: y + self.cell - 4, text: "no devices on this node" }));
      }
      r.row.cells.forEach(function (c) {
        g.appendChild(svg("rect", { class: "cell", x: self.columnX(c[0]) + 1, y: y + 1, width: self.cell - 2, height: self.cell - 2,
          fill: categories[c[1]].colour, "data-category": c[1], "data-col": c[0] }));
      });
      g.addEventListener("click", function () { self.selectedRow = r.index; self.update(); self.details.scrollIntoView({ block: "nearest" }); });
      g.addEventListener("mousemove", function (event) { self.hover(event, r); });
      g.addEventListener("mouseleave", function () { self.tooltip.style.display = "none"; });
      picture.appendChild(g);
    });
    this.picture.textContent = "";
    this.picture.appendChild(picture);
    this.more.textContent = rows.length > MAX_ROWS ? (rows.length - MAX_ROWS) + " more rows: narrow the filter to see them" : "";
  };

  Unit.prototype.hover = function (event, r) {
    var target = event.target;
    var tip = this.tooltip;
    if (!target.classList || !target.classList.contains("cell")) { tip.style.display = "none"; return; }
    var col = Number(target.getAttribute("data-col"));
    var member = r.members[0], group = this.unit.groups[member.group], node = member.nodes[0];
    var cell = group.cells.filter(function (c) { return c[0] === col; })[0];
    var others = r.count - 1;
    tip.textContent = deviceId(group, this.unit.columns[col], node) + "\n" + categories[cell[1]].label + "\n" + text(group, cell[2], node) +
      "\nnode " + node + (others ? " (and " + plural(others, "more node") + " in this row; click for all)" : "");
    tip.style.display = "block";
    var x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    var y = event.clientY + 14 + tip.offsetHeight > window.innerHeight ? event.clientY - tip.offsetHeight - 8 : event.clientY + 14;
    tip.style.left = Math.max(0, x) + "px";
    tip.style.top = Math.max(0, y) + "px";
  };

  // The groups of a row (nodes whose texts agree but for their names), one node shown in full.
  Unit.prototype.showRow = function (r) {
    var u = this.unit, self = this;
    var box = this.details;
    box.textContent = "";
    box.appendChild(el("h3", { text: plural(r.count, "node") + ": " + r.row.result }));
    r.members.slice(0, 20).forEach(function (m) {
      var group = u.groups[m.group];
      var part = el("div", { class: "group", "data-group": m.group });
      var body = el("div");
      var links = m.nodes.slice(0, MAX_NAMES).map(function (n) {
        var link = el("button", { class: "node-link", type: "button", text: n });
        link.addEventListener("click", function () {
          part.querySelectorAll(".node-link").forEach(function (l) { l.classList.toggle("current", l === link); });
          self.groupDetails(body, group, n);
        });
        return link;
      });
      if (links.length) links[0].classList.add("current");
      var names = el("div", null, plural(m.nodes.length, "node") + ": ");
      links.forEach(function (l, i) { if (i) names.appendChild(document.createTextNode(", ")); names.appendChild(l); });
      if (m.nodes.length > MAX_NAMES) names.appendChild(document.createTextNode(", \u2026 " + (m.nodes.length - MAX_NAMES) + " more (filter by name to find one)"));
      part.appendChild(names);
      part.appendChild(body);
      self.groupDetails(body, group, m.nodes[0]);
      box.appendChild(part);
    });
    if (r.members.length > 20) box.appendChild(el("div", { class: "more", text: (r.members.length - 20) + " more groups in this row: narrow the filter" }));
  };

  Unit.prototype.groupDetails = function (body, group, node) {
    var u = this.unit;
    body.textContent = "";
    body.appendChild(el("div", { class: "outcome" }, el("strong", { text: node + ": " }), text(group, group.reason, node)));
    var status = statusText(group, node);
    if (status !== null) {
      // The scheduler's status of the node: the first plugin that rejected it, its reasons
      // word for word, and dractl's detail.
      var plugin = rejectedBy(group), detail = statusDetail(group, node);
      body.appendChild(el("div", { class: "scheduler-status", "data-plugin": groupStatus(group).plugin },
        plugin ? el("span", { class: "swatch", style: "background:" + plugin.colour }) : null,
        "scheduler: ", el("span", { class: "status-reasons", text: status }),
        detail ? el("div", { class: "muted status-detail", text: detail }) : null));
    }
    var table = el("table", null, el("tr", null, el("th", { text: "device" }), el("th", { text: "state" }), el("th", { text: "why" })));
    group.cells.forEach(function (c) {
      table.appendChild(el("tr", { "data-category": c[1] },
        el("td", { class: "mono", text: deviceId(group, u.columns[c[0]], node) }),
        el("td", { class: "state" }, el("span", { class: "swatch", style: "background:" + categories[c[1]].colour }), " " + categories[c[1]].label),
        el("td", { class: "text", text: text(group, c[2], node) })));
    });
    body.appendChild(table);
    if (group.allocations !== null) body.appendChild(el("pre", { class: "yaml", text: toYaml(filled(group, data.allocations[group.allocations], node)) }));
  };

  Unit.prototype.drawAllocations = function () {
    var u = this.unit, self = this;
    var box = this.allocations;
    box.textContent = "";
    var listed = 0, total = 0;
    var list = el("div");
    u.groups.forEach(function (group, g) {
      if (group.allocations === null) return;
      self.matchingNodes(g).forEach(function (node) {
        total++;
        if (listed >= MAX_ALLOCATIONS) return;
        listed++;
        var pre = el("pre", { class: "yaml" });
        var item = el("details", { "data-node": node }, el("summary", null, el("code", { text: node })), pre);
        item.addEventListener("toggle", function () { if (item.open && !pre.textContent) pre.textContent = toYaml(filled(group, data.allocations[group.allocations], node)); });
        list.appendChild(item);
      });
    });
    box.appendChild(el("h3", { text: "AllocationResult per node that can allocate (" + total + ")" }));
    if (!total) { box.appendChild(el("div", { class: "muted", text: "none" + (u.counts.allocated ? " matches the filter" : "") })); return; }
    var first = list.querySelector("details");
    if (first) { first.open = true; first.dispatchEvent(new Event("toggle")); }
    box.appendChild(list);
    if (total > listed) box.appendChild(el("div", { class: "more", text: (total - listed) + " more: filter by name to find one" }));
  };

  var root = document.getElementById("report");
  append(root, header());
  data.units.forEach(function (unit, i) { root.appendChild(new Unit(unit, i).render()); });
  // A workload placed replica by replica: the text output's account of the replicas, then the
  // picture of the replica explained on every node (the first that does not fit).
  data.workloads.forEach(function (workload, i) {
    var section = el("section", { class: "workload", "data-workload": i },
      el("h2", { text: workload.summary[0] }),
      el("pre", { class: "replicas", text: workload.summary.slice(1).join("\n") }));
    if (workload.unit) section.appendChild(new Unit(workload.unit, data.units.length + i).render());
    root.appendChild(section);
  });
  document.documentElement.setAttribute("data-ready", "true");
})();
