package io.roboco.sandbox.readopt;

import io.roboco.sandbox.manager.Admission;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.SandboxRequest;
import java.util.Map;

/**
 * The manager's admission (the lifecycle's records) with the verb sets' credentials sealed beside them: when a set is
 * cached, or a served set's features changed, its containers' rows are written; when it ends, the store drops them
 * with its record. Decides nothing itself.
 */
public final class SealingAdmission implements Admission {
    private final Admission records;
    private final CredentialVault vault;

    public SealingAdmission(Admission records, CredentialVault vault) {
        this.records = records;
        this.vault = vault;
    }

    @Override
    public Decision admit(SandboxRequest request, Map<String, String> labels, AgentSandbox current, int containers) {
        return records.admit(request, labels, current, containers);
    }

    @Override
    public void settled(Decision.Admitted admitted, AgentSandbox entry) {
        records.settled(admitted, entry);
        vault.sealSet(entry.id(), entry.agent(), entry.services().values());
    }

    @Override
    public void failed(Decision.Admitted admitted, AgentSandbox current) {
        records.failed(admitted, current);
    }

    @Override
    public AgentSandbox served(SandboxRequest request, Map<String, String> labels, AgentSandbox entry) {
        AgentSandbox served = records.served(request, labels, entry);
        vault.sealSet(served.id(), served.agent(), served.services().values());
        return served;
    }

    @Override
    public void ended(AgentSandbox entry, String why) {
        records.ended(entry, why);
        vault.forgetSet(entry.containerIds());
    }
}
