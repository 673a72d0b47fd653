package io.roboco.sandbox.settings;

import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.UnknownNameException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A project's Sandbox settings as sent to {@code PUT /api/projects/{id}}, validated against the
 * registry and the allowlists before anything is saved. Every error is a 400 naming what is allowed.
 */
public final class ProjectForm {
    private static final Set<String> FIELDS = Set.of("name", "sandbox_services", "sandbox_extensions");

    private ProjectForm() {
    }

    /** The outcome of validating a project form: the project to save, or why nothing may be saved. */
    public sealed interface Check {
        record Valid(Project project) implements Check {
        }

        record Invalid(String message) implements Check {
        }
    }

    /**
     * The same validation as {@code PUT /api/projects/{id}}, as a value: the dashboard's Sandbox
     * card uses it so the page and the API accept and refuse exactly the same settings.
     */
    public static Check check(String id, Map<String, Object> body, EngineRegistry registry) {
        try {
            return new Check.Valid(parse(id, body, registry));
        } catch (BadRequest e) {
            return new Check.Invalid(e.getMessage());
        }
    }

    /** Validates {@code body}; a {@link BadRequest} names the field and what is allowed. */
    public static Project parse(String id, Map<String, Object> body, EngineRegistry registry) {
        Names.requireProjectId(id);
        for (String key : body.keySet()) {
            if (!FIELDS.contains(key)) {
                throw new BadRequest("unknown field '" + Names.printable(key) + "'; a project takes: name, sandbox_services, sandbox_extensions");
            }
        }
        Object name = body.get("name");
        if (name != null && (!(name instanceof String) || ((String) name).length() > 200)) {
            throw new BadRequest("'name' must be a string of at most 200 characters");
        }
        List<String> services = new ArrayList<>(new LinkedHashSet<>(strings("sandbox_services", body.get("sandbox_services"))));
        for (String service : services) {
            try {
                registry.require(service);
            } catch (UnknownNameException e) {
                throw new BadRequest("sandbox_services: " + e.getMessage() + "; nothing saved");
            }
        }
        Map<String, List<String>> extensions = new TreeMap<>();
        Object raw = body.get("sandbox_extensions");
        if (raw != null) {
            if (!(raw instanceof Map)) {
                throw new BadRequest("'sandbox_extensions' must be an object mapping a service to an array of names, "
                        + "e.g. {\"postgres\":[\"pg_trgm\"]}");
            }
            for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
                String service = String.valueOf(e.getKey());
                if (!services.contains(service)) {
                    throw new BadRequest("sandbox_extensions names service '" + Names.printable(service)
                            + "', which is not in sandbox_services " + services + "; nothing saved");
                }
                List<String> features = new ArrayList<>(new LinkedHashSet<>(strings("sandbox_extensions." + service, e.getValue())));
                try {
                    registry.requireFeatures(service, features);
                } catch (UnknownNameException ex) {
                    throw new BadRequest("sandbox_extensions: " + ex.getMessage() + "; nothing saved");
                }
                if (!features.isEmpty()) {
                    extensions.put(service, features);
                }
            }
        }
        return new Project(id, (String) name, services, extensions);
    }

    public static Map<String, Object> toJson(Project project) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", project.id());
        out.put("name", project.name());
        out.put("sandbox_services", project.services());
        out.put("sandbox_extensions", new TreeMap<>(project.extensions()));
        return out;
    }

    private static List<String> strings(String field, Object raw) {
        if (raw == null) {
            return List.of();
        }
        if (!(raw instanceof List)) {
            throw new BadRequest("'" + field + "' must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (Object item : (List<?>) raw) {
            if (!(item instanceof String)) {
                throw new BadRequest("'" + field + "' must be an array of strings");
            }
            out.add((String) item);
        }
        return out;
    }
}
