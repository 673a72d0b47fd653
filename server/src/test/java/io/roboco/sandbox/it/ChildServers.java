package io.roboco.sandbox.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The child servers a test starts, and what they leave: after each test every one still running is killed
 * ({@code kill -9}) and every container of their instances removed, with a line saying how many.
 * {@code @RegisterExtension final ChildServers servers = new ChildServers();}, then {@code servers.start(env, port, log)}
 * wherever the test would call {@link ChildServer#start} (a restart on the same state dir is the same instance).
 */
public final class ChildServers implements AfterEachCallback {
    private final List<ChildServer> started = new ArrayList<>();
    private final Set<Path> stateDirs = new LinkedHashSet<>();

    /** {@link ChildServer#start}, remembered for the clean-up. */
    public ChildServer start(Map<String, String> env, int port, Path log) throws Exception {
        String state = env.get("ROBOCO_SANDBOX_STATE_DIR");
        if (state != null) {
            stateDirs.add(Path.of(state));
        }
        ChildServer server = ChildServer.start(env, port, log);
        started.add(server);
        return server;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (ChildServer server : started) {
            server.kill9();
        }
        int removed = 0;
        for (Path state : stateDirs) {
            removed += Fixtures.removeAllOf(Fixtures.instanceIdIn(state));
        }
        System.out.println(
                context.getRequiredTestClass().getSimpleName() + " cleanup removed " + removed + " container(s)");
    }
}
