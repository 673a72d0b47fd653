package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.plugin.GuardChain;
import io.roboco.sandbox.plugin.SandboxService;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19: from an MCP {@code request_sandbox} and from the HTTP verb to the container create, "no map is built and
 * decoded again on the way". The JSON arguments arrive as a map (the MCP SDK's, the HTTP body's); the edge decodes it
 * once into the core's typed ask ({@link SandboxService.Ensure}), and from the front door on nothing takes a map of
 * request fields (a {@code Map<String, Object>}, a {@code Map<String, ?>}, a raw {@code Map}, or a record holding one):
 *
 * <ul>
 *   <li>by signature: the front door's, the guard chain's, the manager's, the provisioner's and the runtime's public
 *       methods take none, and the typed asks on the way ({@code Ensure}, {@code Release}, {@code CreateRequest}, the
 *       validated {@link SandboxRequest}, the runtime's {@link RunRequest}) hold none;
 *   <li>on the way, observed: at the container create, every frame of ours deeper than the front door's
 *       {@code SandboxService.ensure} on the thread that took the request, and every frame of ours on the worker that
 *       starts the container, is a method none of whose overloads takes one; the frames above it that do are the
 *       edge's (the MCP gate and tool, the HTTP verb's dispatch), where the one decode happens.
 * </ul>
 *
 * (The typed maps of data on the way — labels {@code Map<String, String>}, per-call features
 * {@code Map<String, List<String>>} — are values of the ask, not its fields.) The frame counts are
 * {@link FrontDoorFramesTest}'s.
 */
class TypedAskOnceTest {
    private static final String FRONT_DOOR = SandboxService.class.getName();

    @TempDir
    Path dir;

    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final AtomicReference<Way> seen = new AtomicReference<>();
    private TestServer t;
    private McpSyncClient mcp;

    /** The frames of ours at the first container create: the requesting thread's (innermost first) and the worker's. */
    private record Way(List<StackTraceElement> requesting, List<StackTraceElement> worker) {}

    @AfterEach
    void stop() {
        if (mcp != null) {
            mcp.closeGracefully();
        }
        if (t != null) {
            t.close();
        }
    }

    @Test
    void noCoreSignatureOnTheWayTakesOrHoldsAMapOfRequestFields() {
        List<String> found = new ArrayList<>();
        for (Class<?> c : List.of(
                SandboxService.class,
                GuardChain.class,
                SandboxManager.class,
                Sandboxes.class,
                ServiceProvisioner.class,
                ContainerRuntime.class)) {
            Stream.<Executable>concat(Arrays.stream(c.getDeclaredMethods()), Arrays.stream(c.getDeclaredConstructors()))
                    .filter(m -> Modifier.isPublic(m.getModifiers()) && !m.isSynthetic())
                    .filter(TypedAskOnceTest::takesRequestMap)
                    .forEach(m -> found.add(
                            c.getSimpleName() + "." + m.getName() + Arrays.toString(m.getGenericParameterTypes())));
        }
        for (Class<?> ask : List.of(
                SandboxService.Ensure.class,
                SandboxService.Release.class,
                Sandboxes.CreateRequest.class,
                RunRequest.class)) {
            for (RecordComponent rc : ask.getRecordComponents()) {
                if (isRequestMap(rc.getGenericType())) {
                    found.add(ask.getSimpleName() + "." + rc.getName() + ": " + rc.getGenericType());
                }
            }
        }
        for (Field f : SandboxRequest.class.getDeclaredFields()) {
            if (isRequestMap(f.getGenericType())) {
                found.add("SandboxRequest." + f.getName() + ": " + f.getGenericType());
            }
        }
        assertThat(found)
                .as("the core takes the typed ask the edge built, never a map of the request's fields")
                .isEmpty();
    }

    @Test
    void theHttpVerbDecodesItsBodyOnceAtTheEdge() {
        start(frame -> frame.getClassName().equals("io.roboco.sandbox.server.http.AgentRoutes"));
        ApiClient.Reply r = t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"postgres\"]}");
        assertThat(r.json()).containsEntry("ok", true);
        assertTypedFromTheFrontDoorOn("HTTP");
    }

    @Test
    void theMcpRequestSandboxDecodesItsArgumentsOnceAtTheEdge() {
        start(frame -> frame.getClassName().equals("io.roboco.sandbox.mcp.Gate"));
        requestOverMcp(Map.of("services", List.of("postgres")));
        assertTypedFromTheFrontDoorOn("MCP");
    }

    @Test
    void theMcpRequestSandboxOfANameDecodesItsArgumentsOnceAtTheEdgeToo() {
        start(frame -> frame.getClassName().equals("io.roboco.sandbox.mcp.Gate"));
        requestOverMcp(Map.of("name", "scratch", "ttl", "20m", "services", List.of("postgres")));
        assertTypedFromTheFrontDoorOn("MCP, named");
    }

    private void assertTypedFromTheFrontDoorOn(String door) {
        Way way = seen.get();
        assertThat(way).as("the fake runtime saw a create").isNotNull();
        List<StackTraceElement> requesting = way.requesting();
        int frontDoor = -1;
        for (int i = requesting.size() - 1; i >= 0; i--) {
            if (requesting.get(i).getClassName().equals(FRONT_DOOR)
                    && requesting.get(i).getMethodName().equals("ensure")) {
                frontDoor = i;
                break;
            }
        }
        assertThat(frontDoor)
                .as(door + ": the request passed the front door, SandboxService.ensure: " + requesting)
                .isNotNegative();
        TreeSet<String> edge = new TreeSet<>();
        for (int i = requesting.size() - 1; i > frontDoor; i--) {
            if (takesRequestMap(requesting.get(i))) {
                edge.add(name(requesting.get(i)));
            }
        }
        assertThat(edge)
                .as(door + ": the edge decodes the request's map (the frames above the front door that take it)")
                .isNotEmpty();
        TreeSet<String> deeper = new TreeSet<>();
        requesting.subList(0, frontDoor + 1).stream()
                .filter(TypedAskOnceTest::takesRequestMap)
                .forEach(f -> deeper.add(name(f)));
        way.worker().stream().filter(TypedAskOnceTest::takesRequestMap).forEach(f -> deeper.add(name(f)));
        System.out.println(door + ": the request's map is decoded at the edge (" + edge + "); "
                + (frontDoor + 1 + way.worker().size()) + " frames of ours from the front door to the create take"
                + " none");
        assertThat(deeper)
                .as(door + ": frames from the front door to the container create that take a map of request fields")
                .isEmpty();
    }

    /** An agent's MCP {@code request_sandbox} with {@code arguments}, which must succeed. */
    private void requestOverMcp(Map<String, Object> arguments) {
        mcp = McpClients.asAgent(t, "dev-1");
        McpSchema.CallToolResult result = mcp.callTool(new McpSchema.CallToolRequest("request_sandbox", arguments));
        assertThat(result.isError()).as(String.valueOf(result.content())).isNotEqualTo(Boolean.TRUE);
    }

    /** A server over the fake runtime whose first start records the frames of ours on the way. */
    private void start(Predicate<StackTraceElement> edge) {
        runtime.onStart(request -> {
            if (seen.get() != null) {
                return;
            }
            List<StackTraceElement> requesting = new ArrayList<>();
            Thread.getAllStackTraces().forEach((thread, stack) -> {
                if (thread != Thread.currentThread() && Arrays.stream(stack).anyMatch(edge)) {
                    requesting.addAll(ours(stack));
                }
            });
            seen.compareAndSet(
                    null, new Way(requesting, ours(Thread.currentThread().getStackTrace())));
        });
        t = new TestServer(
                ServerConfig.defaults(dir)
                        .withPort(0)
                        .withFlag(true)
                        .withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN),
                runtime,
                new FakeSettingsStore());
        t.working("dev-1", "developer");
    }

    private static List<StackTraceElement> ours(StackTraceElement[] stack) {
        return Arrays.stream(stack)
                .filter(f -> f.getClassName().startsWith("io.roboco.sandbox.")
                        && !f.getClassName().startsWith("io.roboco.sandbox.testkit.")
                        && !f.getClassName().startsWith(TypedAskOnceTest.class.getName()))
                .toList();
    }

    /** True when some method of the frame's name in its class takes a map of request fields. */
    private static boolean takesRequestMap(StackTraceElement frame) {
        if (frame.getClassName().contains("$$Lambda")) {
            return false; // a lambda's hidden class forwards to its body, the host's own lambda$ method: a frame of its
            // own
        }
        Class<?> c;
        try {
            c = Class.forName(frame.getClassName(), false, TypedAskOnceTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("frame of an unknown class: " + frame, e);
        }
        List<Executable> named = new ArrayList<>();
        if (frame.getMethodName().equals("<init>")) {
            named.addAll(Arrays.asList(c.getDeclaredConstructors()));
        } else {
            Arrays.stream(c.getDeclaredMethods())
                    .filter(m -> m.getName().equals(frame.getMethodName()))
                    .forEach(named::add);
        }
        return named.stream().anyMatch(TypedAskOnceTest::takesRequestMap);
    }

    private static boolean takesRequestMap(Executable m) {
        return Arrays.stream(m.getGenericParameterTypes()).anyMatch(TypedAskOnceTest::isOrHoldsRequestMap);
    }

    /** A map of request fields, or a record (e.g. the MCP tool's call) with one among its components. */
    private static boolean isOrHoldsRequestMap(Type t) {
        if (isRequestMap(t)) {
            return true;
        }
        return t instanceof Class<?> c
                && c.isRecord()
                && Arrays.stream(c.getRecordComponents()).anyMatch(rc -> isRequestMap(rc.getGenericType()));
    }

    /** {@code Map}, {@code Map<String, Object>}, {@code Map<String, ?>}: fields by name with values of any type. */
    private static boolean isRequestMap(Type t) {
        if (t == Map.class) {
            return true;
        }
        if (!(t instanceof ParameterizedType p) || !Map.class.isAssignableFrom((Class<?>) p.getRawType())) {
            return false;
        }
        Type value = p.getActualTypeArguments()[1];
        return value == Object.class
                || (value instanceof WildcardType w
                        && w.getLowerBounds().length == 0
                        && Arrays.equals(w.getUpperBounds(), new Type[] {Object.class}));
    }

    private static String name(StackTraceElement f) {
        return f.getClassName().substring("io.roboco.sandbox.".length()) + "." + f.getMethodName();
    }
}
