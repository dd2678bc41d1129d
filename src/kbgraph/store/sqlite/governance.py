"""Who may read entities and relations, as the index derives it (kbgraph.ingest.governance): the
current values read in bulk and written back one row at a time. Portable SQL: PostgreSQL runs it too."""

from __future__ import annotations

import sqlite3

from ...access import Governance


class GovernanceQueries:
    db: sqlite3.Connection

    def document_governance(self) -> dict[int, Governance]:
        return {r[0]: Governance(r[1], r[2], r[3])
                for r in self.db.execute("SELECT id, owner, visibility, sensitivity FROM documents")}

    def entity_governance(self) -> dict[int, Governance]:
        return {r[0]: Governance(r[1], r[2], r[3])
                for r in self.db.execute("SELECT id, owner, visibility, sensitivity FROM entities")}

    def relation_governance(self) -> dict[int, tuple[int, int, int | None, Governance]]:
        """Relation id -> (source id, target id, the page it is stated on or None, its governance)."""
        rows = self.db.execute(
            "SELECT id, source_id, target_id, CASE WHEN origin = 'page' THEN origin_doc_id END, owner, visibility,"
            " sensitivity FROM relations")
        return {r[0]: (r[1], r[2], r[3], Governance(r[4], r[5], r[6])) for r in rows}

    def set_relation_governance(self, relation_id: int, governance: Governance) -> None:
        self.db.execute("UPDATE relations SET owner = ?, visibility = ?, sensitivity = ? WHERE id = ?",
                        (governance.owner, governance.visibility, governance.sensitivity, relation_id))

    def suggestion_governance(self) -> dict[int, tuple[list[int], Governance]]:
        """Suggestion id -> (the documents its evidence is in, its governance)."""
        out: dict[int, tuple[list[int], Governance]] = {
            r[0]: ([], Governance(r[1], r[2], r[3]))
            for r in self.db.execute("SELECT id, owner, visibility, sensitivity FROM suggestions")}
        for suggestion_id, doc_id in self.db.execute(
                "SELECT DISTINCT suggestion_id, doc_id FROM suggestion_evidence WHERE doc_id IS NOT NULL"):
            if suggestion_id in out:
                out[suggestion_id][0].append(doc_id)
        return out

    def set_suggestion_governance(self, suggestion_id: int, governance: Governance) -> None:
        self.db.execute("UPDATE suggestions SET owner = ?, visibility = ?, sensitivity = ? WHERE id = ?",
                        (governance.owner, governance.visibility, governance.sensitivity, suggestion_id))

    def decision_governance(self) -> dict[int, tuple[int | None, Governance]]:
        """Resolution decision id -> (the document its name was read in, or None; its governance)."""
        rows = self.db.execute(
            "SELECT x.id, d.id, x.owner, x.visibility, x.sensitivity FROM resolution_decisions x"
            " LEFT JOIN documents d ON d.path = x.doc_path")
        return {r[0]: (r[1], Governance(r[2], r[3], r[4])) for r in rows}

    def set_decision_governance(self, decision_id: int, governance: Governance) -> None:
        self.db.execute("UPDATE resolution_decisions SET owner = ?, visibility = ?, sensitivity = ? WHERE id = ?",
                        (governance.owner, governance.visibility, governance.sensitivity, decision_id))
