package io.roboco.sandbox.verbs;

import io.roboco.sandbox.request.BadRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RoleManifestTest {
    private final RoleManifest roles = RoleManifest.defaults();

    @Test
    void onlyDeveloperAndQaCarryTheSandboxVerbs() {
        assertThat(roles.rolesCarrying(VerbNames.REQUEST_SANDBOX)).containsExactly("developer", "qa");
        assertThat(roles.rolesCarrying(VerbNames.RELEASE_SANDBOX)).containsExactly("developer", "qa");
    }

    @Test
    void everyRoleCarriesGiveMeWorkAndOnlyKnownVerbs() {
        for (String role : roles.roles()) {
            assertThat(roles.requireRole(role)).contains(VerbNames.GIVE_ME_WORK);
            assertThat(VerbNames.ALL).containsAll(roles.requireRole(role));
        }
    }

    @Test
    void reviewerCarriesReviewVerbsButNoSandbox() {
        assertThat(roles.requireRole("reviewer")).contains(VerbNames.PASS_REVIEW, VerbNames.FAIL_REVIEW)
                .doesNotContain(VerbNames.REQUEST_SANDBOX, VerbNames.RELEASE_SANDBOX);
        assertThat(roles.carries("documenter", VerbNames.I_DOCUMENTED)).isTrue();
    }

    @Test
    void unknownRoleIsABadRequestListingTheKnownOnes() {
        assertThatThrownBy(() -> roles.requireRole("wizard")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("unknown role 'wizard'").hasMessageContaining("developer, documenter, planner, qa, reviewer");
    }
}
