import BiomaCore
import GRDB

/// The projects: added, changed and deleted, each in one transaction.
extension StoreCatalog {
    // MARK: Projects

    /// Adds a project at the end of the list; `color` "" means the palette's next
    /// (`Project.nextColor`). Returns its id. A name of an id's form is refused
    /// (`Project.validatedNewName`).
    public func addProject(name: String, color: String, at now: Micros) throws -> String {
        _ = try Project.validatedNewName(name)
        var id = ""
        try change(at: now) { model, db in
            id = try Tracker.insertProject(name: name, color: color, into: &model, db)
            return []
        }
        return id
    }

    /// Renames, recolours and/or moves a project (position is 0-based and clamped to the list),
    /// and sets or removes (`.some(nil)`) its budget.
    public func updateProject(
        _ ref: String, name: String?, color: String?, position: Int?, budget: Budget?? = nil, at now: Micros
    ) throws {
        try change(at: now) { model, db in
            var project = try model.projects.resolve(ref)
            if let name {
                let valid = try Project.validatedNewName(name)
                if model.projects.contains(where: {
                    $0.id != project.id && Project.nameKey($0.name) == Project.nameKey(valid)
                }) {
                    throw TrackerError.nameTaken(valid)
                }
                project.name = valid
            }
            if let color { project.color = try Project.validatedColor(color) }
            if let budget {
                if let amount = budget?.amount, amount <= 0 || amount > Budget.maximum {
                    throw TrackerError.invalidArgument("A budget is more than 0 and at most 100000 hours.")
                }
                project.budget = budget
                try db.execute(
                    sql: "UPDATE project SET budget_us = ?, budget_period = ? WHERE id = ?",
                    arguments: [budget?.amount, budget?.period.rawValue, project.id])
            }
            var list = model.projects.filter { $0.id != project.id }
            let place = min(max(position ?? project.position, 0), list.count)
            list.insert(project, at: place)
            for index in list.indices { list[index].position = index }
            // Names are unique among the others (checked above), so rows can be written in
            // any order without a transient clash on name_key.
            for (old, new) in zip(model.projects, list) where old.name != new.name || old.color != new.color || old.position != new.position || old.id != new.id {
                try db.execute(
                    sql: "UPDATE project SET name = ?, name_key = ?, color = ?, position = ? WHERE id = ?",
                    arguments: [new.name, Project.nameKey(new.name), new.color, new.position, new.id])
            }
            model.projects = list
            return []
        }
    }

    /// Deletes a project and its recorded time, after a backup.
    public func deleteProject(_ ref: String, at now: Micros) throws {
        let id = try model.projects.resolve(ref).id
        try tracker.backups.backup(reason: "before-delete-project", at: now)
        try change(at: now) { model, db in
            let changes = model.state.deleteProject(id, at: now)
            try Tracker.apply(changes, openBefore: model.state.open, db)
            try db.execute(sql: "DELETE FROM project WHERE id = ?", arguments: [id])
            model.projects.removeAll { $0.id == id }
            // Its tasks stay, without a project (the foreign key does the same in the store).
            for index in model.tasks.indices where model.tasks[index].projectID == id { model.tasks[index].projectID = nil }
            // So does the focus timer, and the presets that named it.
            if model.focus?.plan.project == id { model.focus?.plan.project = nil }
            for index in model.presets.indices where model.presets[index].plan.project == id {
                model.presets[index].plan.project = nil
                try db.execute(
                    sql: "UPDATE focus_preset SET plan = ? WHERE id = ?",
                    arguments: [try StoreFocus.json(model.presets[index].plan), model.presets[index].id])
            }
            for index in model.projects.indices where model.projects[index].position != index {
                model.projects[index].position = index
                try db.execute(
                    sql: "UPDATE project SET position = ? WHERE id = ?", arguments: [index, model.projects[index].id])
            }
            return []
        }
    }
}
