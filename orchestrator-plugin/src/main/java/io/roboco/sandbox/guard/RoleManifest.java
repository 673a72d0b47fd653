package io.roboco.sandbox.guard;

import static io.roboco.sandbox.guard.Verbs.CHECKPOINT_SANDBOX;
import static io.roboco.sandbox.guard.Verbs.DIFF_DATA;
import static io.roboco.sandbox.guard.Verbs.DIFF_SCHEMA;
import static io.roboco.sandbox.guard.Verbs.FAIL_REVIEW;
import static io.roboco.sandbox.guard.Verbs.GIVE_ME_WORK;
import static io.roboco.sandbox.guard.Verbs.I_AM_DONE;
import static io.roboco.sandbox.guard.Verbs.I_AM_IDLE;
import static io.roboco.sandbox.guard.Verbs.I_DOCUMENTED;
import static io.roboco.sandbox.guard.Verbs.PASS_REVIEW;
import static io.roboco.sandbox.guard.Verbs.RELEASE_SANDBOX;
import static io.roboco.sandbox.guard.Verbs.REQUEST_SANDBOX;
import static io.roboco.sandbox.guard.Verbs.REWIND_SANDBOX;
import static io.roboco.sandbox.guard.Verbs.SAVE_TEMPLATE;
import static io.roboco.sandbox.guard.Verbs.SNAPSHOT_SCHEMA;
import static io.roboco.sandbox.guard.Verbs.UNCLAIM;

import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.Role;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which verbs each role carries in its spawn manifest. Only {@code developer} and {@code qa} carry
 * {@code request_sandbox} / {@code release_sandbox}.
 *
 * <table>
 *   <caption>default roles</caption>
 *   <tr><th>role</th><th>verbs</th></tr>
 *   <tr><td>developer</td><td>give_me_work, request_sandbox, release_sandbox, i_am_done, i_documented, unclaim, i_am_idle,
 *       snapshot_schema, diff_schema, checkpoint_sandbox, rewind_sandbox, diff_data, save_template</td></tr>
 *   <tr><td>qa</td><td>give_me_work, request_sandbox, release_sandbox, pass_review, fail_review, i_am_done, unclaim, i_am_idle,
 *       snapshot_schema, diff_schema, checkpoint_sandbox, rewind_sandbox, diff_data, save_template</td></tr>
 *   <tr><td>reviewer</td><td>give_me_work, pass_review, fail_review, unclaim, i_am_idle</td></tr>
 *   <tr><td>documenter</td><td>give_me_work, i_documented, i_am_done, unclaim, i_am_idle</td></tr>
 *   <tr><td>planner</td><td>give_me_work, i_am_done, unclaim, i_am_idle</td></tr>
 * </table>
 */
public final class RoleManifest {
    private final Map<String, Set<String>> verbsByRole;

    private RoleManifest(Map<String, Set<String>> verbsByRole) {
        verbsByRole.keySet().forEach(Role::parse);
        this.verbsByRole = Collections.unmodifiableMap(verbsByRole);
    }

    public static RoleManifest defaults() {
        Map<String, Set<String>> roles = new LinkedHashMap<>();
        roles.put(
                "developer",
                ordered(
                        GIVE_ME_WORK,
                        REQUEST_SANDBOX,
                        RELEASE_SANDBOX,
                        I_AM_DONE,
                        I_DOCUMENTED,
                        UNCLAIM,
                        I_AM_IDLE,
                        SNAPSHOT_SCHEMA,
                        DIFF_SCHEMA,
                        CHECKPOINT_SANDBOX,
                        REWIND_SANDBOX,
                        DIFF_DATA,
                        SAVE_TEMPLATE));
        roles.put(
                "qa",
                ordered(
                        GIVE_ME_WORK,
                        REQUEST_SANDBOX,
                        RELEASE_SANDBOX,
                        PASS_REVIEW,
                        FAIL_REVIEW,
                        I_AM_DONE,
                        UNCLAIM,
                        I_AM_IDLE,
                        SNAPSHOT_SCHEMA,
                        DIFF_SCHEMA,
                        CHECKPOINT_SANDBOX,
                        REWIND_SANDBOX,
                        DIFF_DATA,
                        SAVE_TEMPLATE));
        roles.put("reviewer", ordered(GIVE_ME_WORK, PASS_REVIEW, FAIL_REVIEW, UNCLAIM, I_AM_IDLE));
        roles.put("documenter", ordered(GIVE_ME_WORK, I_DOCUMENTED, I_AM_DONE, UNCLAIM, I_AM_IDLE));
        roles.put("planner", ordered(GIVE_ME_WORK, I_AM_DONE, UNCLAIM, I_AM_IDLE));
        return new RoleManifest(roles);
    }

    /** The verbs of {@code role}, in manifest order; empty when the role is unknown. */
    public Optional<List<String>> verbsFor(String role) {
        Set<String> verbs = verbsByRole.get(role);
        return verbs == null ? Optional.empty() : Optional.of(List.copyOf(verbs));
    }

    /** The verbs of {@code role}, or a {@link BadRequest} listing the known roles. */
    public List<String> requireRole(String role) {
        return verbsFor(role)
                .orElseThrow(() -> new BadRequest(
                        "unknown role '" + Names.printable(role) + "'; known: " + String.join(", ", roles())));
    }

    public boolean carries(String role, String verb) {
        Set<String> verbs = verbsByRole.get(role);
        return verbs != null && verbs.contains(verb);
    }

    /** Roles that carry {@code verb}, sorted; for refusal messages. */
    public List<String> rolesCarrying(String verb) {
        TreeSet<String> roles = new TreeSet<>();
        verbsByRole.forEach((role, verbs) -> {
            if (verbs.contains(verb)) {
                roles.add(role);
            }
        });
        return List.copyOf(roles);
    }

    public Set<String> roles() {
        return new TreeSet<>(verbsByRole.keySet());
    }

    private static Set<String> ordered(String... verbs) {
        return Collections.unmodifiableSet(new LinkedHashSet<>(List.of(verbs)));
    }
}
