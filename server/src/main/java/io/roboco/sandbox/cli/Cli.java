package io.roboco.sandbox.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code roboco-sandbox <command>}: the jar's entry point ({@code java -jar server/target/roboco-sandbox.jar} and
 * {@code ./scripts/roboco-sandbox}). Exit codes: 0 all well, 1 the command ran and found a problem (or failed),
 * 2 bad usage. With no command it serves, as {@code ./scripts/run.sh} does.
 *
 * <p>Adding a subcommand is one class (a picocli {@code @Command} implementing {@code Callable<Integer>}, taking
 * {@link ServerClient} as a mixin when it talks to the running server) plus its line in {@code subcommands} below.
 */
@Command(
        name = "roboco-sandbox",
        mixinStandardHelpOptions = true,
        versionProvider = Cli.Version.class,
        description =
                "Throwaway Postgres, Redis and MongoDB sandboxes for AI agents: the server and its operator commands.",
        subcommands = {
            ServeCommand.class,
            McpCommand.class,
            DoctorCommand.class,
            ListCommand.class,
            DeleteCommand.class,
            ReleaseCommand.class,
            CleanupCommand.class,
            ClientTokenCommand.class,
            RotateKeyCommand.class,
            CommandLine.HelpCommand.class
        },
        footer = {
            "",
            "Commands that need a server talk to ROBOCO_SANDBOX_URL (default http://127.0.0.1:$ROBOCO_SANDBOX_PORT) with the admin",
            "token from ROBOCO_SANDBOX_ADMIN_TOKEN or the state directory ($ROBOCO_SANDBOX_STATE_DIR/admin-token)."
        })
public final class Cli implements Runnable {
    /** What a command returns when it started something that keeps running (serve): main must not exit. */
    static final int KEEP_RUNNING = -1;

    public static void main(String[] args) {
        int code = run(args.length == 0 ? new String[] {"serve"} : args);
        if (code != KEEP_RUNNING) {
            System.exit(code);
        }
    }

    /** Runs one command line; its exit code, or {@link #KEEP_RUNNING}. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Cli());
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("roboco-sandbox " + line.getCommandName() + ": " + e.getMessage());
            return 1;
        });
        return cl;
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Cli.class.getPackage().getImplementationVersion();
            return new String[] {"roboco-sandbox " + (v == null ? "(development build)" : v)};
        }
    }
}
