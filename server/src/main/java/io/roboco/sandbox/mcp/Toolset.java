package io.roboco.sandbox.mcp;

import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The groups an agent's MCP tools come in. An agent token is minted for one or more toolsets ({@code POST
 * /api/agents/{slug}/token {"toolsets":["core","inspect"]}}); {@code tools/list} shows only their tools (and of those only
 * what the agent's role may call), and a call to a tool outside them is refused, naming the toolset that has it. Each
 * toolset holds at most {@link #MAX_TOOLS} tools: agents choose worse from long tool lists.
 *
 * <p>Every tool an agent can call is in exactly one toolset; the gate refuses to start otherwise. A new agent tool is
 * one more name here.
 */
public enum Toolset {
    /** A sandbox of one's own: get it, see it, lengthen it, give it back. */
    CORE(
            "get, list, extend and release your sandboxes",
            true,
            List.of("request_sandbox", "release_sandbox", "list_sandboxes", "extend_sandbox")),
    /** Read-only looks into one's sandbox. */
    INSPECT(
            "read-only looks into your sandbox: schemas, tables, read-only queries, plans, index advice, Redis and Mongo",
            false,
            List.of(
                    "list_schemas",
                    "list_tables",
                    "describe_table",
                    "run_readonly_query",
                    "explain_query",
                    "suggest_indexes",
                    "describe_sandbox")),
    /** Schema snapshots, checkpoints and their data diffs, templates. */
    DATA(
            "schema snapshots and diffs, checkpoints, rewinds and data diffs, templates",
            true,
            List.of(
                    "snapshot_schema",
                    "diff_schema",
                    "checkpoint_sandbox",
                    "rewind_sandbox",
                    "diff_data",
                    "save_template",
                    "list_templates"));

    /** The most tools a toolset may hold. */
    public static final int MAX_TOOLS = 10;

    private final String summary;
    private final boolean byDefault;
    private final List<String> tools;

    Toolset(String summary, boolean byDefault, List<String> tools) {
        if (tools.size() > MAX_TOOLS) {
            throw new IllegalStateException(
                    "toolset " + this + " holds " + tools.size() + " tools, more than " + MAX_TOOLS);
        }
        this.summary = summary;
        this.byDefault = byDefault;
        this.tools = List.copyOf(tools);
    }

    /** Its name as tokens and requests carry it: {@code core}, {@code inspect}, {@code data}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String summary() {
        return summary;
    }

    public List<String> tools() {
        return tools;
    }

    /**
     * What a token is minted for when the orchestrator names no toolset: {@code core} and {@code data}, what the roles
     * that carry sandbox verbs (developer, qa) use. {@code inspect} is asked for by name. A role that carries no
     * sandbox verb (reviewer, documenter, planner) sees none of these tools whatever its token's toolsets: the gate
     * lists only what the agent's role may call.
     */
    public static Set<Toolset> defaults() {
        EnumSet<Toolset> out = EnumSet.noneOf(Toolset.class);
        for (Toolset t : values()) {
            if (t.byDefault) {
                out.add(t);
            }
        }
        return out;
    }

    /** The toolset that holds {@code tool}, if any. */
    public static Optional<Toolset> of(String tool) {
        for (Toolset t : values()) {
            if (t.tools.contains(tool)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    /** A toolset by its id, or a {@link BadRequest} naming the known ones and their tools. */
    public static Toolset parse(String id) {
        for (Toolset t : values()) {
            if (t.id().equals(id)) {
                return t;
            }
        }
        throw new BadRequest("unknown toolset '" + Names.printable(id) + "'; known: " + known());
    }

    /**
     * The {@code toolsets} of a mint request: a non-empty JSON array of toolset ids; null (not given) is
     * {@link #defaults()}.
     */
    public static Set<Toolset> parseAll(Object value) {
        if (value == null) {
            return defaults();
        }
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            throw new BadRequest("'toolsets' must be a non-empty array of toolset names; known: " + known());
        }
        EnumSet<Toolset> out = EnumSet.noneOf(Toolset.class);
        for (Object item : list) {
            if (!(item instanceof String id)) {
                throw new BadRequest("'toolsets' holds names (strings); known: " + known());
            }
            out.add(parse(id));
        }
        return out;
    }

    /** Toolsets as stored with a token ({@code AgentToken.toolsets()}); empty is {@link #defaults()}. */
    public static Set<Toolset> stored(List<String> ids) {
        if (ids.isEmpty()) {
            return defaults();
        }
        EnumSet<Toolset> out = EnumSet.noneOf(Toolset.class);
        for (String id : ids) {
            for (Toolset t : values()) {
                if (t.id().equals(id)) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    /** Ids in declaration order, for tokens and answers. */
    public static List<String> ids(Set<Toolset> toolsets) {
        List<String> out = new ArrayList<>();
        for (Toolset t : values()) {
            if (toolsets.contains(t)) {
                out.add(t.id());
            }
        }
        return out;
    }

    /** Holds the table to the tools the gate has: every agent tool in exactly one toolset, every name a tool. */
    static void check(Map<String, ToolSpec> specs) {
        Set<String> named = new LinkedHashSet<>();
        for (Toolset t : values()) {
            for (String tool : t.tools) {
                ToolSpec spec = specs.get(tool);
                if (spec == null || spec.audience() == ToolSpec.Audience.OPERATOR) {
                    throw new IllegalArgumentException(
                            "toolset " + t.id() + " names '" + tool + "', which is no tool an agent can call");
                }
                if (!named.add(tool)) {
                    throw new IllegalArgumentException("tool " + tool + " is in two toolsets");
                }
            }
        }
        List<String> homeless = specs.values().stream()
                .filter(s -> s.audience() != ToolSpec.Audience.OPERATOR && !named.contains(s.name()))
                .map(ToolSpec::name)
                .toList();
        if (!homeless.isEmpty()) {
            throw new IllegalArgumentException("agent tools in no toolset: " + homeless
                    + "; add each to one toolset in " + Toolset.class.getName());
        }
    }

    private static String known() {
        return List.of(values()).stream()
                .map(t -> t.id() + " (" + String.join(", ", t.tools) + ")")
                .collect(Collectors.joining("; "));
    }
}
