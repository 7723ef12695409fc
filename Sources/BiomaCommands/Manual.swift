import BiomaText
import BiomaSystem
import ArgumentParser

/// The manual page, `biomatimer(1)`, made from the commands themselves: their abstracts,
/// discussions and the help ArgumentParser prints for each, so it cannot drift from them.
enum Manual {
    static func page(version: String) -> String {
        let root = Biomatimer.configuration
        var out = """
            .TH BIOMATIMER 1 "" "biomatimer \(roff(version))" "User Commands"
            .SH NAME
            biomatimer \\- \(roff(root.abstract))
            .SH SYNOPSIS
            .B biomatimer
            .I command
            .RI [ options ]
            .SH DESCRIPTION
            \(paragraphs(root.discussion))
            .SH COMMANDS

            """
        for command in root.subcommands { out += section(command, path: ["biomatimer"]) }
        out += """
            .SH EXIT STATUS
            .TP
            .B 0
            done
            .TP
            .B 1
            the daemon refused (its reason on standard error)
            .TP
            .B 2
            usage error
            .TP
            .B 3
            no session bus, or no daemon
            .SH ENVIRONMENT
            .TP
            .B DBUS_SESSION_BUS_ADDRESS
            the session bus (else \\fI$XDG_RUNTIME_DIR/bus\\fR)
            .TP
            .B BIOMATIMER_TIMEOUT
            seconds a command waits for the daemon's answer (default 25)
            .TP
            .B NO_COLOR
            no colours in reports
            .SH FILES
            .TP
            .I $XDG_DATA_HOME/biomatimer/
            the data (default \\fI~/.local/share/biomatimer/\\fR), with \\fIbackups/\\fR
            .TP
            .I $XDG_CONFIG_HOME/biomatimer/config
            the daemon's settings: \\fBday_start\\fR, \\fBweek_start\\fR, \\fBdata_dir\\fR
            .SH SEE ALSO
            .BR busctl (1),
            .BR gdbus (1),
            .BR waybar (5),
            .BR i3blocks (1)

            """
        return out
    }

    /// One command's section: a heading with its full name, its help text as printed.
    private static func section(_ command: any ParsableCommand.Type, path: [String]) -> String {
        let configuration = command.configuration
        let name = configuration.commandName ?? "\(command)".lowercased()
        let full = path + [name]
        var out = ".SS \(roff(full.joined(separator: " ")))\n"
        if configuration.subcommands.isEmpty {
            out += ".nf\n" + roff(Biomatimer.helpMessage(for: command, columns: 78)).trimmingTrailingNewlines() + "\n.fi\n"
        } else {
            out += roff(configuration.abstract) + "\n"
            for sub in configuration.subcommands { out += section(sub, path: full) }
        }
        return out
    }

    private static func paragraphs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true).map { roff(String($0)) }.joined(separator: "\n.PP\n")
    }

    /// Text as roff reads it literally: backslashes escaped, and no line starting a request.
    static func roff(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let escaped = line.split(separator: "\\", omittingEmptySubsequences: false).joined(separator: "\\e")
            return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
        }.joined(separator: "\n")
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
