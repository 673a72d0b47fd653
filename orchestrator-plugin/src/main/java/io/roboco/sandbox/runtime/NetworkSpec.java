package io.roboco.sandbox.runtime;

import java.util.Map;
import java.util.Objects;

/**
 * A network the runtime makes for sandboxes.
 *
 * @param name     unique on the daemon
 * @param labels   ownership labels, as on containers ({@code roboco.sandbox=1}, instance, owner, created)
 * @param internal no route off the host through it: its members reach one another and nothing else, and it never
 *                 becomes a member's default route (so a port published on another network stays there)
 * @param isolated its members cannot reach one another through it (inter-container traffic off); the host still can
 */
public record NetworkSpec(String name, Map<String, String> labels, boolean internal, boolean isolated) {
    public NetworkSpec {
        Objects.requireNonNull(name, "name");
        labels = Map.copyOf(labels);
    }
}
