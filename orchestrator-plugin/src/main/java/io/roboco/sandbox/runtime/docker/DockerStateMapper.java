package io.roboco.sandbox.runtime.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Container;
import io.roboco.sandbox.runtime.ContainerState;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Maps docker-java's container views onto {@link ContainerState}. */
final class DockerStateMapper {
    private static final Pattern EXITED = Pattern.compile("^Exited \\((-?\\d+)\\)");

    private DockerStateMapper() {}

    static ContainerState fromInspect(InspectContainerResponse r) {
        InspectContainerResponse.ContainerState s = r.getState();
        boolean running = s != null && Boolean.TRUE.equals(s.getRunning());
        Long exit = s == null ? null : s.getExitCodeLong();
        Map<String, String> labels =
                r.getConfig() == null ? null : r.getConfig().getLabels();
        String image = r.getConfig() == null ? r.getImageId() : r.getConfig().getImage();
        return new ContainerState(
                r.getId(),
                stripSlash(r.getName()),
                image,
                running,
                s == null ? "unknown" : s.getStatus(),
                running || exit == null ? null : exit.intValue(),
                s != null && Boolean.TRUE.equals(s.getOOMKilled()),
                labels,
                epochSeconds(r.getCreated()),
                r.getNetworkSettings() == null
                        ? null
                        : names(r.getNetworkSettings().getNetworks()));
    }

    /**
     * From a listing entry. The listing carries no OOM flag and the exit code only inside the human
     * status ("Exited (3) 2 seconds ago"); {@code inspect} gives the exact values.
     */
    static ContainerState fromListing(Container c) {
        boolean running = "running".equals(c.getState());
        Integer exit = null;
        if (!running && c.getStatus() != null) {
            Matcher m = EXITED.matcher(c.getStatus());
            exit = m.find() ? Integer.valueOf(m.group(1)) : null;
        }
        String name = c.getNames() == null || c.getNames().length == 0 ? "" : stripSlash(c.getNames()[0]);
        return new ContainerState(
                c.getId(),
                name,
                c.getImage(),
                running,
                c.getState(),
                exit,
                false,
                c.getLabels(),
                c.getCreated() == null ? 0L : c.getCreated(),
                c.getNetworkSettings() == null
                        ? null
                        : names(c.getNetworkSettings().getNetworks()));
    }

    /** The names of the networks a container is attached to (host mode: none; Docker names it "host"). */
    private static Set<String> names(Map<String, ?> networks) {
        if (networks == null) {
            return Set.of();
        }
        Set<String> names = new TreeSet<>(networks.keySet());
        names.removeAll(Set.of("host", "none"));
        return names;
    }

    /** Docker reports RFC 3339 timestamps with nanoseconds ("2024-05-01T10:00:00.123456789Z"). */
    static long epochSeconds(String created) {
        if (created == null || created.isBlank()) {
            return 0L;
        }
        try {
            return Instant.parse(created).getEpochSecond();
        } catch (DateTimeParseException e) {
            return 0L;
        }
    }

    private static String stripSlash(String name) {
        return name != null && name.startsWith("/") ? name.substring(1) : name;
    }
}
