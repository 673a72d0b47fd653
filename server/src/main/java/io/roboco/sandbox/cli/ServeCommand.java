package io.roboco.sandbox.cli;

import io.roboco.sandbox.server.SandboxServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code serve}: the standalone server, configured from the environment (what ./scripts/run.sh starts). */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Start the server (configured by ROBOCO_SANDBOX_* variables; see README).",
            "Example: ROBOCO_SANDBOX_DB_ENABLED=true roboco-sandbox serve"
        })
final class ServeCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        int code = SandboxServer.serve(System.getenv());
        return code == 0 ? Cli.KEEP_RUNNING : code;
    }
}
