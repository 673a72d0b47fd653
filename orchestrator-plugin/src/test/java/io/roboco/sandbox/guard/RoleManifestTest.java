package io.roboco.sandbox.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.request.BadRequest;
import org.junit.jupiter.api.Test;

class RoleManifestTest {
    private final RoleManifest roles = RoleManifest.defaults();

    @Test
    void onlyDeveloperAndQaCarryTheSandboxVerbs() {
        assertThat(roles.rolesCarrying(Verbs.REQUEST_SANDBOX)).containsExactly("developer", "qa");
        assertThat(roles.rolesCarrying(Verbs.RELEASE_SANDBOX)).containsExactly("developer", "qa");
    }

    @Test
    void everyRoleCarriesGiveMeWorkAndOnlyKnownVerbs() {
        for (String role : roles.roles()) {
            assertThat(roles.requireRole(role)).contains(Verbs.GIVE_ME_WORK);
            assertThat(Verbs.ALL).containsAll(roles.requireRole(role));
        }
    }

    @Test
    void reviewerCarriesReviewVerbsButNoSandbox() {
        assertThat(roles.requireRole("reviewer"))
                .contains(Verbs.PASS_REVIEW, Verbs.FAIL_REVIEW)
                .doesNotContain(Verbs.REQUEST_SANDBOX, Verbs.RELEASE_SANDBOX);
        assertThat(roles.carries("documenter", Verbs.I_DOCUMENTED)).isTrue();
    }

    @Test
    void unknownRoleIsABadRequestListingTheKnownOnes() {
        assertThatThrownBy(() -> roles.requireRole("wizard"))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("unknown role 'wizard'")
                .hasMessageContaining("developer, documenter, planner, qa, reviewer");
    }
}
