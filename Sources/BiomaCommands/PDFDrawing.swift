import BiomaSystem

#if canImport(Glibc)
import Glibc
#endif

/// `report --pdf`: the daemon's pages of SVG drawn into one PDF by librsvg with cairo
/// (`rsvg-convert -f pdf`), in a child process, so the process running the command (the
/// daemon, for the front) keeps nothing of the drawing. The pages go through a private
/// temporary folder that is removed afterwards.
enum PDFDrawing {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func draw(pages: [String]) throws -> [UInt8] {
        let base = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/biomatimer-pdf-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Failure(description: "Cannot make a temporary folder in \(base) for the PDF: \(String(cString: strerror(errno))).")
        }
        let folder = String(cString: made)
        var names: [String] = []
        defer {
            for name in names { unlink(folder + "/" + name) }
            unlink(folder + "/timesheet.pdf")
            rmdir(folder)
        }
        for (index, page) in pages.enumerated() {
            let name = "page-\(index + 1).svg"
            do {
                try AtomicFile.write(Array(page.utf8), to: folder + "/" + name, mode: 0o600)
            } catch {
                throw Failure(description: "Cannot write the PDF's pages in \(folder): \(error).")
            }
            names.append(name)
        }
        let output = folder + "/timesheet.pdf"
        let arguments = ["rsvg-convert", "-f", "pdf", "-o", output] + names.map { folder + "/" + $0 }
        // Found on PATH; its standard output and error the process's own (the daemon's log).
        let status: Int32
        do throws(SystemError) {
            let child = try Spawn.start(
                arguments, environment: .inherited, options: Spawn.Options(output: .inherit, error: .inherit, searchPath: true))
            status = child.wait()
        } catch {
            throw Failure(description: "Cannot run rsvg-convert (librsvg2-bin) to draw the PDF: \(error.description).")
        }
        guard Spawn.succeeded(status) else {
            throw Failure(description: "rsvg-convert could not draw the PDF (status \(status)).")
        }
        do {
            return try readWholeFile(output)
        } catch {
            throw Failure(description: "Cannot read the PDF rsvg-convert drew: \(error).")
        }
    }
}
