package io.roboco.sandbox.pages;

import java.util.ArrayList;
import java.util.List;

/**
 * Geometry checks of a row of boxes in the rendered page, read through WebDriver's script call from each element's
 * {@code getBoundingClientRect()}: no two boxes intersect, every box lies inside its container, every visible child
 * lies inside its box, no box scrolls sideways, and no select is narrower than its own text needs (a cut-off
 * version choice). Each problem comes back as one line naming the elements and their rectangles.
 */
final class BoxLayout {
    /** Rectangles are compared with this slack (CSS px), for sub-pixel rounding. */
    static final double SLACK = 0.5;

    private static final String CHECK = """
            const [containerCss, boxCss, slack] = arguments;
            const problems = [];
            const container = document.querySelector(containerCss);
            if (!container) { return ['no ' + containerCss + ' on the page']; }
            const boxes = [...container.querySelectorAll(boxCss)];
            const rect = e => e.getBoundingClientRect();
            const fmt = r => '[' + [r.left, r.top, r.right, r.bottom].map(v => v.toFixed(1)).join(', ') + ']';
            const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
                + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
            const boxName = b => name(b) + '(' + (b.querySelector('legend') || b).textContent.trim().split(/\\s+/)[0] + ')';
            const inside = (inner, outer) => inner.left >= outer.left - slack && inner.right <= outer.right + slack
                && inner.top >= outer.top - slack && inner.bottom <= outer.bottom + slack;
            const c = rect(container);
            for (let i = 0; i < boxes.length; i++) {
              const a = rect(boxes[i]);
              if (!inside(a, c)) { problems.push(boxName(boxes[i]) + ' ' + fmt(a) + ' leaves ' + containerCss + ' ' + fmt(c)); }
              for (let j = i + 1; j < boxes.length; j++) {
                const b = rect(boxes[j]);
                if (a.left < b.right - slack && b.left < a.right - slack && a.top < b.bottom - slack && b.top < a.bottom - slack) {
                  problems.push(boxName(boxes[i]) + ' ' + fmt(a) + ' intersects ' + boxName(boxes[j]) + ' ' + fmt(b));
                }
              }
            }
            for (const box of boxes) {
              const r = rect(box);
              if (box.scrollWidth > box.clientWidth + 1) {
                problems.push(boxName(box) + ' scrolls sideways: content ' + box.scrollWidth + ' px in ' + box.clientWidth + ' px');
              }
              for (const child of box.querySelectorAll('*')) {
                const k = rect(child);
                if (k.width === 0 && k.height === 0) { continue; }
                if (!inside(k, r)) { problems.push(name(child) + ' ' + fmt(k) + ' overflows ' + boxName(box) + ' ' + fmt(r)); }
              }
              for (const select of box.querySelectorAll('select')) {
                const shown = rect(select).width;
                const width = select.style.width, maxWidth = select.style.maxWidth;
                select.style.width = 'auto';
                select.style.maxWidth = 'none';
                const needed = rect(select).width;
                select.style.width = width;
                select.style.maxWidth = maxWidth;
                if (shown + slack < needed) {
                  problems.push(name(select) + ' in ' + boxName(box) + ' is cut off: ' + shown.toFixed(1)
                      + ' px shown, its text needs ' + needed.toFixed(1) + ' px');
                }
              }
            }
            if (document.documentElement.scrollWidth > window.innerWidth) {
              problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px in ' + window.innerWidth + ' px');
            }
            return problems;
            """;

    private BoxLayout() {}

    /** The boxes matching {@code boxCss} inside {@code containerCss}, as the page lays them out now. */
    static int count(Browser browser, String containerCss, String boxCss) {
        Object n = browser.script(
                "return document.querySelectorAll(arguments[0] + ' ' + arguments[1]).length;", containerCss, boxCss);
        return ((Number) n).intValue();
    }

    /** Every layout problem of the boxes {@code boxCss} inside {@code containerCss}; empty when they fit. */
    static List<String> problems(Browser browser, String containerCss, String boxCss) {
        Object found = browser.script(CHECK, containerCss, boxCss, SLACK);
        List<String> out = new ArrayList<>();
        for (Object line : (List<?>) found) {
            out.add(String.valueOf(line));
        }
        return out;
    }
}
