// A small force-directed layout: nodes repel each other (inverse square),
// relationships pull their ends together like springs, a weak pull keeps
// the drawing near the centre, and velocities decay so it settles. A node
// with `fixed` set (being dragged) stays where it is put. O(n²) per step,
// which is fine for the few hundred nodes the graph view draws.

const REPULSION = 2500;
const SPRING = 0.04;
const LENGTH = 110;
const GRAVITY = 0.01;
const DAMPING = 0.82;
const MAX_SPEED = 40;

export class ForceLayout {
  /**
   * `nodes`: objects that receive x, y (and vx, vy); `links`: {source,
   * target} pairs of those objects.
   */
  constructor(nodes, links, width, height) {
    this.nodes = nodes;
    this.links = links;
    this.cx = width / 2;
    this.cy = height / 2;
    // Start on a circle (deterministic, no two nodes on one spot).
    const radius = Math.min(width, height) / 3;
    nodes.forEach((node, i) => {
      const angle = (2 * Math.PI * i) / Math.max(nodes.length, 1);
      node.x = this.cx + radius * Math.cos(angle);
      node.y = this.cy + radius * Math.sin(angle);
      node.vx = 0;
      node.vy = 0;
    });
    this.energy = 1;
  }

  /** One step; returns the total movement, which falls as it settles. */
  step() {
    const { nodes } = this;
    for (let i = 0; i < nodes.length; i += 1) {
      for (let j = i + 1; j < nodes.length; j += 1) {
        const a = nodes[i];
        const b = nodes[j];
        let dx = b.x - a.x;
        let dy = b.y - a.y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 0.01) { dx = 0.1 * (j - i); dy = 0.1; d2 = dx * dx + dy * dy; }
        const d = Math.sqrt(d2);
        const f = REPULSION / d2;
        a.vx -= (f * dx) / d; a.vy -= (f * dy) / d;
        b.vx += (f * dx) / d; b.vy += (f * dy) / d;
      }
    }
    for (const { source, target } of this.links) {
      if (source === target) continue;
      const dx = target.x - source.x;
      const dy = target.y - source.y;
      const d = Math.sqrt(dx * dx + dy * dy) || 1;
      const f = SPRING * (d - LENGTH);
      source.vx += (f * dx) / d; source.vy += (f * dy) / d;
      target.vx -= (f * dx) / d; target.vy -= (f * dy) / d;
    }
    let moved = 0;
    for (const node of nodes) {
      node.vx = (node.vx + GRAVITY * (this.cx - node.x)) * DAMPING;
      node.vy = (node.vy + GRAVITY * (this.cy - node.y)) * DAMPING;
      const speed = Math.hypot(node.vx, node.vy);
      if (speed > MAX_SPEED) { node.vx *= MAX_SPEED / speed; node.vy *= MAX_SPEED / speed; }
      if (node.fixed) { node.vx = 0; node.vy = 0; continue; }
      node.x += node.vx;
      node.y += node.vy;
      moved += Math.abs(node.vx) + Math.abs(node.vy);
    }
    return moved;
  }
}
