package io.roboco.sandbox.web;

import io.roboco.sandbox.plugin.OperatorConsole;

/**
 * The Sandboxes page's capacity gauge: containers live of the server's cap, and the bar's share (0-100).
 *
 * @param max null when no cap is configured
 */
public record CapacityGauge(int used, Integer max, int percent) {
    static CapacityGauge of(OperatorConsole.LifecycleLimits limits) {
        Integer max = limits.capacityMax();
        int percent =
                max == null || max == 0 ? 0 : (int) Math.min(100, Math.round(100.0 * limits.capacityUsed() / max));
        return new CapacityGauge(limits.capacityUsed(), max, percent);
    }
}
