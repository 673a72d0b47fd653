package io.roboco.sandbox.verbs;

import io.roboco.sandbox.plugin.SandboxService;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.request.Labels;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.request.ServiceName;
import io.roboco.sandbox.request.TemplateName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Parses verb arguments from a JSON-decoded object (maps, lists, strings, numbers, booleans, nulls).
 * Unknown keys, wrong types and malformed service names are {@link BadRequest}s; whether a
 * well-shaped name is <em>allowed</em> is the guard chain's decision, not the parser's.
 */
final class Arguments {
    private static final int MAX_FEATURE_LENGTH = 64;

    private Arguments() {}

    /** {@code give_me_work}: both required, non-blank strings. */
    record Work(String project, String task) {}

    /**
     * {@code request_sandbox}: {@code services} an optional array of strings, {@code extensions} an optional object
     * service → array of strings, {@code labels} an optional object of string labels for the agent's sandbox record,
     * {@code template} an optional template name (a new sandbox starts from it), and where the edge takes them
     * ({@link #NAMED_KEYS}) {@code name} a sandbox name other than default and {@code ttl} its lifetime: parsed once,
     * into the core's typed ask.
     */
    static SandboxService.Ensure sandboxRequest(String slug, Map<String, Object> args) {
        return sandboxRequest(slug, args, VERB_SET_KEYS);
    }

    /** The arguments of {@code request_sandbox} for the agent's verb set. */
    static final Set<String> VERB_SET_KEYS = Set.of("services", "extensions", "labels", "template");
    /** ... and for a sandbox of another name, where the edge offers one (the MCP tool). */
    static final Set<String> NAMED_KEYS = Set.of("services", "extensions", "labels", "template", "name", "ttl");

    static SandboxService.Ensure sandboxRequest(String slug, Map<String, Object> args, Set<String> keys) {
        Map<String, Object> in = onlyKeys(VerbNames.REQUEST_SANDBOX, args, keys);
        SandboxName name = in.get("name") == null ? null : SandboxName.parseNamed("name", in.get("name"));
        Duration ttl = null;
        if (in.get("ttl") != null) {
            (name == null ? SandboxName.VERB_SET : name).requireFixedTtl("ttl");
            ttl = DurationText.require("ttl", in.get("ttl"));
        }
        List<String> services = null;
        Object rawServices = in.get("services");
        if (rawServices != null) {
            services = new ArrayList<>();
            for (String s : strings("services", rawServices)) {
                services.add(ServiceName.parse(s).value());
            }
        }
        Map<String, List<String>> extensions = null;
        Object rawExtensions = in.get("extensions");
        if (rawExtensions != null) {
            if (!(rawExtensions instanceof Map)) {
                throw new BadRequest(
                        "'extensions' must be an object mapping a service to an array of names, e.g. {\"postgres\":[\"pg_trgm\"]}");
            }
            extensions = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) rawExtensions).entrySet()) {
                String service = ServiceName.parse(String.valueOf(e.getKey())).value();
                List<String> names = strings("extensions." + service, e.getValue());
                for (String feature : names) {
                    if (feature.isEmpty() || feature.length() > MAX_FEATURE_LENGTH) {
                        throw new BadRequest("extension name '" + Names.printable(feature) + "' for " + service
                                + " must be 1-" + MAX_FEATURE_LENGTH + " characters");
                    }
                }
                extensions.put(service, names);
            }
        }
        Map<String, String> labels = in.containsKey("labels") ? Labels.parse("labels", in.get("labels")) : null;
        String template = in.get("template") == null
                ? null
                : TemplateName.parse("template", in.get("template")).value();
        return new SandboxService.Ensure(slug, name, services, extensions, ttl, labels, template);
    }

    static Work work(Map<String, Object> args) {
        Map<String, Object> in = onlyKeys(VerbNames.GIVE_ME_WORK, args, Set.of("project", "task"));
        String project = requiredString(in, "project");
        String task = requiredString(in, "task");
        if (task.length() > 200) {
            throw new BadRequest("'task' must be at most 200 characters");
        }
        return new Work(ProjectId.parse(project).value(), task);
    }

    /**
     * {@code {"name": "…"}}: a snapshot or checkpoint name (its shape is checked by the operation); diff_data's is
     * {@code {"checkpoint": "…"}}.
     */
    static String name(String verb, Map<String, Object> args) {
        String key = VerbNames.DIFF_DATA.equals(verb) ? "checkpoint" : "name";
        Map<String, Object> in = onlyKeys(verb, args, Set.of(key));
        return requiredString(in, key);
    }

    /** {@code save_template}: {@code {"name": "…", "replace"?: bool}}; the name's shape is checked by the operation. */
    record Template(String name, boolean replace) {}

    static Template template(Map<String, Object> args) {
        Map<String, Object> in = onlyKeys(VerbNames.SAVE_TEMPLATE, args, Set.of("name", "replace"));
        Object replace = in.get("replace");
        if (replace != null && !(replace instanceof Boolean)) {
            throw new BadRequest("'replace' must be true or false");
        }
        return new Template(requiredString(in, "name"), Boolean.TRUE.equals(replace));
    }

    /** Verbs that take no arguments accept an empty object (or no body). */
    static void none(String verb, Map<String, Object> args) {
        onlyKeys(verb, args, Set.of());
    }

    private static Map<String, Object> onlyKeys(String verb, Map<String, Object> args, Set<String> allowed) {
        Map<String, Object> in = args == null ? Map.of() : args;
        for (String key : in.keySet()) {
            if (!allowed.contains(key)) {
                throw new BadRequest("unknown argument '" + Names.printable(key) + "' for " + verb + "; "
                        + (allowed.isEmpty()
                                ? "it takes none"
                                : "it takes: " + String.join(", ", new TreeSet<>(allowed))));
            }
        }
        return in;
    }

    private static List<String> strings(String field, Object raw) {
        if (!(raw instanceof List)) {
            throw new BadRequest("'" + field + "' must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (Object item : (List<?>) raw) {
            if (!(item instanceof String)) {
                throw new BadRequest("'" + field + "' must be an array of strings; found "
                        + (item == null ? "null" : "a non-string"));
            }
            out.add((String) item);
        }
        return out;
    }

    private static String requiredString(Map<String, Object> in, String field) {
        Object value = in.get(field);
        if (!(value instanceof String) || ((String) value).isBlank()) {
            throw new BadRequest("'" + field + "' is required and must be a non-empty string");
        }
        return (String) value;
    }
}
