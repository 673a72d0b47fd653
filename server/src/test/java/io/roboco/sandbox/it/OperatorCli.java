package io.roboco.sandbox.it;

import io.roboco.sandbox.testkit.ApiClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The operator CLI as an operator runs it: {@code java -jar target/roboco-sandbox.jar <command>} in a child JVM, output captured. */
public final class OperatorCli {
    /** Its exit code and everything it printed (stdout and stderr). */
    public record Run(int exit, String out) {}

    private OperatorCli() {}

    /** The environment that points the CLI at the server on {@code port} with the test admin token. */
    public static Map<String, String> against(int port) {
        return Map.of(
                "ROBOCO_SANDBOX_URL", "http://127.0.0.1:" + port, "ROBOCO_SANDBOX_ADMIN_TOKEN", ApiClient.ADMIN_TOKEN);
    }

    /** Runs the jar with {@code args} and {@code env} added to this JVM's environment; bounded at 120 s. */
    public static Run run(Map<String, String> env, String... args) throws Exception {
        Path jar = Path.of("target", "roboco-sandbox.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing; run the verify phase (it is built in package)");
        }
        List<String> command = new ArrayList<>(
                List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m", "-jar", jar.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(
                    "roboco-sandbox " + String.join(" ", args) + " did not end in 120 s; output: " + out);
        }
        System.out.println("$ roboco-sandbox " + String.join(" ", args) + "  (exit " + p.exitValue() + ")\n" + out);
        return new Run(p.exitValue(), out);
    }
}
