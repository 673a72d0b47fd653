package io.roboco.sandbox.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The official MCP TypeScript SDK client ({@code @modelcontextprotocol/sdk}, pinned in
 * {@code src/test/mcp-client/package-lock.json}) run by Node as a child process: {@code driver.mjs} takes one
 * JSON command per line and answers one JSON line. The first use installs the package into
 * {@code target/mcp-client} with {@code npm ci} (npm's configured registry; the lockfile names no host).
 */
@SuppressWarnings("unchecked")
public final class TypeScriptMcpClient implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SOURCE = Path.of("src/test/mcp-client");
    private static final Path INSTALL = Path.of("target/mcp-client");
    private static final long ANSWER_SECONDS = 180;

    private final Process node;
    private final Writer in;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final BlockingQueue<Map<String, Object>> events = new LinkedBlockingQueue<>();

    private TypeScriptMcpClient(Map<String, String> env) {
        Path dir = ensureInstalled();
        ProcessBuilder pb = new ProcessBuilder("node", "driver.mjs").directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("ROBOCO_SANDBOX_") || k.startsWith("MCP_"));
        pb.environment().putAll(env);
        try {
            node = pb.start();
        } catch (IOException e) {
            throw new AssertionError(
                    "cannot start node (Node.js 18+ must be on PATH; ./scripts/test.sh installs it): " + e, e);
        }
        in = new OutputStreamWriter(node.getOutputStream(), StandardCharsets.UTF_8);
        daemon("ts-mcp-client-stdout", () -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("{\"event\"")) {
                        events.add(JSON.readValue(line, Map.class));
                    } else {
                        answers.add(line);
                    }
                }
            }
        });
        daemon("ts-mcp-client-stderr", () -> {
            try (BufferedReader err =
                    new BufferedReader(new InputStreamReader(node.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = err.readLine()) != null; ) {
                    System.err.println("[ts-client] " + line);
                }
            }
        });
    }

    /** Over Streamable HTTP to {@code url}; {@code token} null sends no Authorization header. */
    public static TypeScriptMcpClient http(String url, String token) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MCP_TRANSPORT", "http");
        env.put("MCP_URL", url);
        if (token != null) {
            env.put("MCP_TOKEN", token);
        }
        return new TypeScriptMcpClient(env);
    }

    /** Over stdio: the client spawns {@code command} with {@code childEnv} added to its environment. */
    static TypeScriptMcpClient stdio(List<String> command, Map<String, String> childEnv) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MCP_TRANSPORT", "stdio");
        try {
            env.put("MCP_COMMAND", JSON.writeValueAsString(command));
            env.put("MCP_ENV", JSON.writeValueAsString(childEnv));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new TypeScriptMcpClient(env);
    }

    /** One answer: {@code ok} and the rest of the driver's JSON. */
    public record Answer(Map<String, Object> json) {
        public boolean ok() {
            return Boolean.TRUE.equals(json.get("ok"));
        }

        public Map<String, Object> error() {
            return (Map<String, Object>) json.get("error");
        }

        /** A tools/call result: content, structuredContent, isError. */
        public Map<String, Object> result() {
            if (!ok()) {
                throw new AssertionError("the call failed: " + error());
            }
            return (Map<String, Object>) json.get("result");
        }

        public Map<String, Object> structured() {
            return (Map<String, Object>) result().get("structuredContent");
        }

        public boolean isError() {
            return Boolean.TRUE.equals(result().get("isError"));
        }

        public String text() {
            return (String)
                    ((List<Map<String, Object>>) result().get("content")).get(0).get("text");
        }
    }

    public Answer connect() {
        return send(Map.of("op", "connect"));
    }

    public List<Map<String, Object>> listTools() {
        return listToolsSized().tools();
    }

    /** A {@code tools/list} answer: the tools, and the result's size as JSON in UTF-8 bytes (what a model receives). */
    public record ToolList(List<Map<String, Object>> tools, int bytes) {}

    public ToolList listToolsSized() {
        Answer a = send(Map.of("op", "listTools"));
        if (!a.ok()) {
            throw new AssertionError("tools/list failed: " + a.error());
        }
        return new ToolList(
                (List<Map<String, Object>>) a.json().get("tools"),
                ((Number) a.json().get("bytes")).intValue());
    }

    public Answer call(String tool, Map<String, Object> arguments) {
        return send(Map.of("op", "call", "name", tool, "arguments", arguments));
    }

    /** A call that asks for progress notifications; the answer's {@code progress} lists the ones received. */
    public Answer callWithProgress(String tool, Map<String, Object> arguments) {
        return send(Map.of("op", "callWithProgress", "name", tool, "arguments", arguments));
    }

    /**
     * The first event (a progress notification, as it arrived, while a call is still running) that {@code which}
     * accepts; events before it are dropped. Fails when none came within {@code timeout}.
     */
    public Map<String, Object> awaitEvent(Predicate<Map<String, Object>> which, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            Map<String, Object> event = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
            if (event == null) {
                throw new AssertionError(
                        "no matching event from the TypeScript client within " + timeout.toSeconds() + " s");
            }
            if (which.test(event)) {
                return event;
            }
        }
    }

    /** {@code count} calls of {@code tool} at once; each result: {@code ok}, {@code isError}, {@code structured}, or a failure. */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> burst(String tool, Map<String, Object> arguments, int count) {
        Answer a = send(Map.of("op", "burst", "name", tool, "arguments", arguments, "count", count));
        if (!a.ok()) {
            throw new AssertionError("burst failed: " + a.error());
        }
        return (List<Map<String, Object>>) a.json().get("results");
    }

    /** Wall time (ms) of {@code count} sequential calls, measured inside the client around callTool. */
    List<Double> timeCalls(String tool, Map<String, Object> arguments, int count) {
        Answer a = send(Map.of("op", "timeCalls", "name", tool, "arguments", arguments, "count", count));
        if (!a.ok()) {
            throw new AssertionError("timed calls failed: " + a.error());
        }
        List<Double> out = new ArrayList<>();
        ((List<Number>) a.json().get("millis")).forEach(n -> out.add(n.doubleValue()));
        return out;
    }

    private Answer send(Map<String, Object> command) {
        try {
            in.write(JSON.writeValueAsString(command) + "\n");
            in.flush();
            String line = answers.poll(ANSWER_SECONDS, TimeUnit.SECONDS);
            if (line == null) {
                throw new AssertionError("the TypeScript client did not answer " + command.get("op") + " within "
                        + ANSWER_SECONDS + " s");
            }
            return new Answer(JSON.readValue(line, Map.class));
        } catch (IOException e) {
            throw new AssertionError("the TypeScript client went away (" + e + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    @Override
    public void close() {
        try {
            if (node.isAlive()) {
                send(Map.of("op", "close"));
            }
        } catch (AssertionError ignored) {
            // already gone
        }
        try {
            if (!node.waitFor(20, TimeUnit.SECONDS)) {
                node.descendants().forEach(ProcessHandle::destroy);
                node.destroy();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code target/mcp-client} with the pinned SDK installed ({@code npm ci}) once per lockfile. */
    static synchronized Path ensureInstalled() {
        try {
            Files.createDirectories(INSTALL);
            for (String file : List.of("package.json", "package-lock.json", ".npmrc", "driver.mjs")) {
                Files.copy(SOURCE.resolve(file), INSTALL.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            String lock = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256")
                            .digest(Files.readAllBytes(INSTALL.resolve("package-lock.json"))));
            Path marker = INSTALL.resolve("node_modules/.roboco-installed");
            if (Files.exists(marker) && Files.readString(marker).strip().equals(lock)) {
                return INSTALL;
            }
            Process npm = new ProcessBuilder("npm", "ci", "--prefer-offline", "--no-audit", "--no-fund")
                    .directory(INSTALL.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!npm.waitFor(10, TimeUnit.MINUTES) || npm.exitValue() != 0) {
                throw new AssertionError(
                        "npm ci in " + INSTALL.toAbsolutePath() + " failed (Node.js 18+ and npm must be on"
                                + " PATH; ./scripts/test.sh installs them):\n" + output);
            }
            Files.writeString(marker, lock);
            System.out.println(
                    "installed the MCP TypeScript SDK client into " + INSTALL.toAbsolutePath() + ": " + output.strip());
            return INSTALL;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new AssertionError("installing the MCP TypeScript SDK client failed: " + e, e);
        }
    }

    private interface Body {
        void run() throws IOException;
    }

    private static void daemon(String name, Body body) {
        Thread t = new Thread(
                () -> {
                    try {
                        body.run();
                    } catch (IOException ignored) {
                        // the process ended
                    }
                },
                name);
        t.setDaemon(true);
        t.start();
    }
}
