package io.roboco.sandbox.it;

import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.testkit.ApiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Settings and Docker chores shared by the fault and security ITs. */
public final class Fixtures {
    private Fixtures() {}

    public static Map<String, String> serverEnv(Path stateDir, String tick, String grace, String readyTimeout) {
        Map<String, String> env = new HashMap<>();
        env.put("ROBOCO_SANDBOX_STATE_DIR", stateDir.toString());
        env.put("ROBOCO_SANDBOX_DB_ENABLED", "true");
        env.put("ROBOCO_SANDBOX_NETWORK", "host");
        env.put("ROBOCO_SANDBOX_IMAGE_POSTGRES", LocalImages.IMAGES.get("postgres"));
        env.put("ROBOCO_SANDBOX_IMAGE_REDIS", LocalImages.IMAGES.get("redis"));
        env.put("ROBOCO_SANDBOX_IMAGE_MONGO", LocalImages.IMAGES.get("mongo"));
        env.put("ROBOCO_SANDBOX_API_TOKEN", ApiClient.API_TOKEN);
        env.put("ROBOCO_SANDBOX_ADMIN_TOKEN", ApiClient.ADMIN_TOKEN);
        env.put("ROBOCO_SANDBOX_JANITOR_TICK", tick);
        env.put("ROBOCO_SANDBOX_JANITOR_GRACE", grace);
        env.put("ROBOCO_SANDBOX_READY_TIMEOUT", readyTimeout);
        return env;
    }

    /** Ids of containers (running or not) of one server instance. */
    public static List<String> containersOf(String instanceId) {
        String out = LocalImages.docker(
                        "ps",
                        "-aq",
                        "--no-trunc",
                        "--filter",
                        "label=roboco.sandbox=1",
                        "--filter",
                        "label=roboco.sandbox.instance=" + instanceId)
                .strip();
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\s+"));
    }

    /** Ids of containers (running or not) of one server instance that one agent owns. */
    public static List<String> containersOf(String instanceId, String agent) {
        String out = LocalImages.docker(
                        "ps",
                        "-aq",
                        "--no-trunc",
                        "--filter",
                        "label=roboco.sandbox.instance=" + instanceId,
                        "--filter",
                        "label=roboco.sandbox.agent=" + agent)
                .strip();
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\s+"));
    }

    /** Ids of running containers of one server instance. */
    public static List<String> runningOf(String instanceId) {
        String out = LocalImages.docker(
                        "ps",
                        "-q",
                        "--no-trunc",
                        "--filter",
                        "label=roboco.sandbox=1",
                        "--filter",
                        "label=roboco.sandbox.instance=" + instanceId)
                .strip();
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\s+"));
    }

    /**
     * Containers of one instance the daemon created from {@code since} until now (its event log: a container created
     * and removed again counts too).
     */
    public static List<String> createdSince(String instanceId, Instant since) {
        String out = LocalImages.docker(
                        "events",
                        "--since",
                        since.getEpochSecond() + "." + String.format("%09d", since.getNano()),
                        "--until",
                        Long.toString(Instant.now().getEpochSecond() + 1),
                        "--filter",
                        "type=container",
                        "--filter",
                        "event=create",
                        "--filter",
                        "label=roboco.sandbox.instance=" + instanceId,
                        "--format",
                        "{{.Actor.ID}}")
                .strip();
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\s+"));
    }

    /** Force-removes every container of one instance; returns how many there were. Never throws. */
    public static int removeAllOf(String instanceId) {
        if (instanceId == null) {
            return 0;
        }
        List<String> ids;
        try {
            ids = containersOf(instanceId);
        } catch (RuntimeException e) {
            System.err.println("cleanup of instance " + instanceId + " failed: " + e.getMessage());
            return -1;
        }
        int removed = 0;
        for (String id : ids) {
            try {
                LocalImages.docker("rm", "-f", "-v", id);
                removed++;
            } catch (RuntimeException e) {
                // Gone meanwhile (the server removes in the background), or the daemon refused: say so, go on.
                System.err.println("cleanup of container " + id + " of instance " + instanceId + ": " + e.getMessage());
            }
        }
        return removed;
    }

    /** The instance id a server keeps in its state directory. */
    public static String instanceIdIn(Path stateDir) {
        try {
            return Files.readString(stateDir.resolve("instance-id")).strip();
        } catch (IOException e) {
            return null;
        }
    }

    public static void figure(String text) {
        System.out.println("[figure] " + text);
    }
}
