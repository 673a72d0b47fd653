package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Optional;

/** Projects and their Sandbox settings. Validation happens before {@link #save}; the store only persists. */
public interface ProjectStore {
    Optional<Project> findProject(String id);

    List<Project> allProjects();

    /** Creates or replaces the project with this id. */
    void saveProject(Project project);
}
