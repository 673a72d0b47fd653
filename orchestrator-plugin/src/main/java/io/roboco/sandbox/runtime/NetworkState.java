package io.roboco.sandbox.runtime;

import java.util.Map;
import java.util.Set;

/**
 * A network as the runtime sees it.
 *
 * @param containers ids of the containers attached to it now (ours and anyone else's)
 */
public record NetworkState(String id, String name, Map<String, String> labels, Set<String> containers) {
    public NetworkState {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        containers = containers == null ? Set.of() : Set.copyOf(containers);
    }
}
