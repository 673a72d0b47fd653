package io.roboco.sandbox.runtime.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.TtyExecErrorable;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * A command in a sandbox pod through the Kubernetes exec API (a websocket, {@code v4.channel.k8s.io}).
 *
 * <p>Two things differ from {@code docker exec}. The exec API takes no environment, and its command line is part of the
 * request's URL, which API servers write to their audit logs: so the environment (an admin password, for one) is never
 * put on the command line; it travels on stdin as {@code export} lines that a wrapper reads first with {@code dd}
 * (byte by byte, so it never reads past them). And v4 cannot half-close stdin, so the command never sees an end of
 * input: the input is spooled to learn its length and the command runs behind {@code head -c <length>}, as the Docker
 * runtime does. Input goes out in frames of {@value #FRAME} bytes.
 */
final class PodExec {
    static final int FRAME = 8192;
    private static final Pattern ENV_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final KubernetesClient client;
    private final String namespace;
    private final Duration timeout;

    PodExec(KubernetesClient client, String namespace, Duration timeout) {
        this.client = client;
        this.namespace = namespace;
        this.timeout = timeout;
    }

    ExecResult run(String pod, List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) {
        String what = "exec " + command + " in pod " + pod + " (namespace " + namespace + ")";
        byte[] envScript = envScript(env, what);
        Path spool = null;
        try {
            long length = 0;
            if (stdin != null) {
                spool = Files.createTempFile("roboco-exec-stdin", ".spool");
                try (stdin;
                        OutputStream file = Files.newOutputStream(spool)) {
                    length = stdin.transferTo(file);
                }
            }
            List<String> line = wrapped(command, envScript.length, stdin == null ? -1 : length);
            boolean feeds = envScript.length > 0 || stdin != null;
            ByteArrayOutputStream collected = new ByteArrayOutputStream();
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            OutputStream out = stdout != null ? stdout : collected;
            PodResource resource = client.pods().inNamespace(namespace).withName(pod);
            TtyExecErrorable input = (feeds ? resource.redirectingInput(FRAME) : resource).writingOutput(out);
            try (ExecWatch watch = input.writingError(stderr).exec(line.toArray(String[]::new))) {
                if (feeds) {
                    OutputStream in = watch.getInput();
                    write(in, envScript);
                    if (spool != null) {
                        try (InputStream data = Files.newInputStream(spool)) {
                            byte[] buffer = new byte[FRAME];
                            for (int n; (n = data.read(buffer)) > 0; ) {
                                in.write(buffer, 0, n);
                                in.flush();
                            }
                        }
                    }
                }
                Integer code = watch.exitCode().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (code == null || code < 0) {
                    throw new ContainerRuntimeException(what + " ended without an exit code (the pod's container may"
                            + " have stopped meanwhile); stderr: "
                            + stderr.toString(StandardCharsets.UTF_8).strip());
                }
                return new ExecResult(
                        code,
                        stdout != null ? "" : collected.toString(StandardCharsets.UTF_8),
                        stderr.toString(StandardCharsets.UTF_8));
            }
        } catch (TimeoutException e) {
            throw new ContainerRuntimeException(what + " did not finish within " + timeout.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ContainerRuntimeException(what + " interrupted", e);
        } catch (ExecutionException e) {
            throw new ContainerRuntimeException(what + " failed: " + KubernetesFailures.rootMessage(e), e);
        } catch (KubernetesClientException e) {
            throw KubernetesFailures.of(what, e);
        } catch (IOException e) {
            throw new ContainerRuntimeException(
                    what + ": its input could not be spooled or sent (" + e.getMessage()
                            + "); check the temporary directory's free space",
                    e);
        } finally {
            if (spool != null) {
                try {
                    Files.deleteIfExists(spool);
                } catch (IOException ignored) {
                    // a temporary file left behind
                }
            }
        }
    }

    private static void write(OutputStream in, byte[] bytes) throws IOException {
        for (int off = 0; off < bytes.length; off += FRAME) {
            in.write(bytes, off, Math.min(FRAME, bytes.length - off));
            in.flush();
        }
    }

    /**
     * The command line sent: as given when there is neither environment nor input; otherwise behind a {@code sh -c}
     * that reads {@code envBytes} of {@code export} lines, then hands the command {@code dataBytes} of input (-1: none).
     */
    static List<String> wrapped(List<String> command, int envBytes, long dataBytes) {
        if (envBytes == 0 && dataBytes < 0) {
            return command;
        }
        StringBuilder script = new StringBuilder();
        if (envBytes > 0) {
            script.append("eval \"$(dd bs=1 count=").append(envBytes).append(" 2>/dev/null)\"; ");
        }
        if (dataBytes < 0) {
            script.append("exec \"$@\" </dev/null");
        } else {
            script.append("head -c ").append(dataBytes).append(" | \"$@\"");
        }
        List<String> line = new ArrayList<>(List.of("sh", "-c", script.toString(), "sh"));
        line.addAll(command);
        return line;
    }

    /** {@code export K='v'} lines, each value single-quoted. */
    static byte[] envScript(Map<String, String> env, String what) {
        StringBuilder script = new StringBuilder();
        new TreeMap<>(env).forEach((k, v) -> {
            if (!ENV_KEY.matcher(k).matches()) {
                throw new ContainerRuntimeException(what + ": environment variable name '" + k + "' is not valid");
            }
            script.append("export ")
                    .append(k)
                    .append("='")
                    .append(v.replace("'", "'\\''"))
                    .append("'\n");
        });
        return script.toString().getBytes(StandardCharsets.UTF_8);
    }
}
