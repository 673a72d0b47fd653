package io.roboco.sandbox.mcp;

import io.roboco.sandbox.inspect.InspectionPolicy;
import io.roboco.sandbox.inspect.PostgresInspector;
import io.roboco.sandbox.inspect.PostgresTarget;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One {@link PostgresInspector} per live Postgres sandbox container (each holds one proven read-only connection
 * with the agent's own credential, from the env the agent was handed). An inspector whose container is no longer live is closed on the next use
 * of any; a new container (a replaced sandbox) gets a new inspector; so does a changed policy.
 */
final class Inspectors implements AutoCloseable {
    private record Held(PostgresInspector inspector, InspectionPolicy policy) {}

    private final Map<String, Held> byContainer = new HashMap<>();
    private final Supplier<Set<String>> liveContainers;

    Inspectors(Supplier<Set<String>> liveContainers) {
        this.liveContainers = liveContainers;
    }

    synchronized PostgresInspector of(ScopedSandbox.Access postgres, InspectionPolicy policy) {
        Set<String> live = liveContainers.get();
        for (Iterator<Map.Entry<String, Held>> it = byContainer.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Held> e = it.next();
            if (!live.contains(e.getKey())) {
                e.getValue().inspector().close();
                it.remove();
            }
        }
        Held held = byContainer.get(postgres.containerId());
        if (held == null || !held.policy().equals(policy)) {
            if (held != null) {
                held.inspector().close();
            }
            Map<String, String> env = postgres.env();
            PostgresTarget target = new PostgresTarget(
                    env.get("ROBOCO_TEST_DB_HOST"),
                    Integer.parseInt(env.get("ROBOCO_TEST_DB_PORT")),
                    env.get("ROBOCO_TEST_DB_NAME"),
                    env.get("ROBOCO_TEST_DB_USER"),
                    env.get("ROBOCO_TEST_DB_PASSWORD"));
            held = new Held(PostgresInspector.of(target, policy), policy);
            byContainer.put(postgres.containerId(), held);
        }
        return held.inspector();
    }

    synchronized int size() {
        return byContainer.size();
    }

    @Override
    public synchronized void close() {
        byContainer.values().forEach(h -> h.inspector().close());
        byContainer.clear();
    }
}
