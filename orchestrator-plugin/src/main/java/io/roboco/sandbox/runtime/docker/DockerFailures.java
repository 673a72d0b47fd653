package io.roboco.sandbox.runtime.docker;

import com.github.dockerjava.api.exception.DockerException;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns docker-java failures into actionable {@link ContainerRuntimeException}s. */
final class DockerFailures {
    private static final Pattern DAEMON_MESSAGE = Pattern.compile("\"message\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private DockerFailures() {}

    /** The daemon's own sentence ("No such image: x") rather than docker-java's "Status 404: {json}". */
    static String daemonMessage(DockerException e) {
        String raw = e.getMessage() == null ? "" : e.getMessage();
        Matcher m = DAEMON_MESSAGE.matcher(raw);
        return (m.find() ? m.group(1).replace("\\\"", "\"") : raw).strip();
    }

    static ContainerRuntimeException unreachable(String dockerHost, Throwable cause) {
        return new ContainerRuntimeException(
                "Docker daemon at " + dockerHost + " not reachable (" + rootMessage(cause)
                        + "); start it (./scripts/test.sh starts one) or set DOCKER_HOST",
                cause);
    }

    static ContainerRuntimeException imageMissing(String image, Throwable cause) {
        return new ContainerRuntimeException(
                "image " + image + " is not present on the Docker host and is never pulled"
                        + " (no registry is reachable); run ./scripts/build-images.sh or configure the engine's image",
                cause);
    }

    /** Wraps any failure of one API call; connection faults become the "not reachable" message. */
    static ContainerRuntimeException of(String dockerHost, String what, RuntimeException e) {
        if (e instanceof ContainerRuntimeException cre) {
            return cre;
        }
        if (e instanceof DockerException de) {
            return new ContainerRuntimeException(
                    what + " failed: " + daemonMessage(de) + " (HTTP " + de.getHttpStatus() + ")", e);
        }
        return unreachable(dockerHost, e);
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
