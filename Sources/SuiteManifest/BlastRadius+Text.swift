import SharedKeychain

extension BlastRadius: TextReport {
    /// The report for a terminal: the matrix (rows: the app making the call, columns: the app
    /// whose sign-in goes, by number; cells: the calls' letters), the legend, then per call why
    /// it reaches a sign-in and which app it lets reach which others.
    public var text: String {
        let title = suiteName.map { "\(DisplayText($0)) in \(DisplayText(manifest))" } ?? DisplayText(manifest).description
        var lines = ["blast radius of suite \(title): \(apps.count.counted("app"))", ""]
        lines += matrixLines
        lines.append("")
        lines.append("cells: the calls by which the row's app can destroy the column's app's sign-in; - none; self: not counted")
        for call in DestructiveCall.allCases {
            lines.append("  \(call.code)  \(call.api): \(call.summary)")
        }
        lines.append("")
        if isEmpty {
            lines.append("no app can destroy another app's sign-in: none reaches a group where another keeps it")
        } else {
            lines += howLines
        }
        for app in apps where !app.signsIn {
            lines.append("note: \(DisplayText(app.label)) is not entitled to its cache group \(DisplayText(app.keychainGroup)), so it has no sign-in to lose (suite check: keychain-group-entitled)")
        }
        lines += intuneLines
        lines += ["", "\(cells.count) of \(pairCount.counted("pair")) exposed, \(wayCount.counted("way"))"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `1  Contoso Mail (com.contoso.mail)   self  WARDM  WARDM`, under a header of numbers.
    private var matrixLines: [String] {
        let rowLabels = apps.enumerated().map { index, app in "\(index + 1)  \(DisplayText(app.displayName))" }
        let labelWidth = max(rowLabels.map(\.count).max() ?? 0, "attacker".count)
        // Each pair's letters are its profiles': made once per pair of profiles.
        let codes = (0..<profiles.count).map { attacker in
            (0..<profiles.count).map { victim -> String in
                let calls = profiles.ways(attacker: attacker, victim: victim).map(\.call.code)
                return calls.isEmpty ? "-" : calls.joined()
            }
        }
        let cellTexts = apps.indices.map { attacker in
            apps.indices.map { victim -> String in
                attacker == victim ? "self" : codes[profiles.profileOfApp[attacker]][profiles.profileOfApp[victim]]
            }
        }
        let columnWidth = max(cellTexts.joined().map(\.count).max() ?? 0, String(apps.count).count, "self".count)
        func row(_ label: String, _ cells: [String]) -> String {
            // Cells are ASCII and never wider than the column: padded by hand, a million of them
            // for a thousand apps, where Foundation's padding (by UTF-16 length) took seconds.
            var line = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + "  "
            for (index, cell) in cells.enumerated() {
                if index > 0 { line += "  " }
                line += cell
                line += String(repeating: " ", count: max(columnWidth - cell.count, 0))
            }
            while line.last == " " { line.removeLast() }
            return line
        }
        var lines = [String(repeating: " ", count: labelWidth + 2) + "victim", row("attacker", apps.indices.map { String($0 + 1) })]
        for (label, cells) in zip(rowLabels, cellTexts) { lines.append(row(label, cells)) }
        return lines
    }

    /// Per call, each reason it reaches a sign-in, with the apps it lets reach which others:
    /// `W wipeCacheForAllAccounts: <why>` over `  Contoso Mail -> Contoso Calendar, Contoso Notes`.
    private var howLines: [String] {
        let labels = apps.map { DisplayText($0.label).description }
        let profileCount = profiles.count
        var lines: [String] = []
        for call in DestructiveCall.allCases {
            // Reasons in order of first appearance; attackers and victims in manifest order. A
            // pair's reason is its profiles': looked up once per pair of profiles.
            var reasons: [(reason: String, reach: [(attacker: Int, victims: [String])])] = []
            var reasonPositions: [String: Int] = [:]
            var reasonOfProfiles = [Int?](repeating: nil, count: profileCount * profileCount)
            for attacker in apps.indices {
                let attackerProfile = profiles.profileOfApp[attacker]
                for victim in apps.indices where victim != attacker {
                    let pair = attackerProfile * profileCount + profiles.profileOfApp[victim]
                    let index: Int
                    if let known = reasonOfProfiles[pair] {
                        index = known
                    } else {
                        guard let way = ways(attackerAt: attacker, victimAt: victim).first(where: { $0.call == call }) else { continue }
                        index = reasonPositions[way.reason] ?? {
                            reasons.append((way.reason, []))
                            reasonPositions[way.reason] = reasons.count - 1
                            return reasons.count - 1
                        }()
                        reasonOfProfiles[pair] = index
                    }
                    if let last = reasons[index].reach.last, last.attacker == attacker {
                        reasons[index].reach[reasons[index].reach.count - 1].victims.append(labels[victim])
                    } else {
                        reasons[index].reach.append((attacker, [labels[victim]]))
                    }
                }
            }
            for (reason, reach) in reasons {
                lines.append("\(call.code) \(call.api): \(reason)")
                for (attacker, victims) in reach {
                    lines.append("    \(labels[attacker]) -> \(victims.joined(separator: ", "))")
                }
            }
        }
        return lines
    }

    /// Per app with Intune: where the Intune App SDK reads its token, and the other apps that
    /// can delete it there (with their calls' letters), which breaks the app's enrolment.
    private var intuneLines: [String] {
        guard !intuneReaders.isEmpty else { return [] }
        var lines = ["", "intune enrolment: an app that can delete the token the Intune App SDK reads breaks that app's enrolment (MAM policy stops applying until the user signs in again)"]
        let exposures = intuneExposures
        for reader in intuneReaders {
            let head = "  \(label(of: reader.bundleID)) (Intune reads \(DisplayText(reader.group))): "
            guard reader.readsTheCache else {
                lines.append(head + "not the cache its SDK writes, so enrolment has no token to lose (suite check: intune-cache-group)")
                continue
            }
            let attackers = exposures.filter { $0.intuneApp == reader.bundleID }
                .map { "\(label(of: $0.attacker)) (\($0.calls.map(\.code).joined()))" }
            lines.append(head + (attackers.isEmpty ? "no other app can delete it" : attackers.joined(separator: ", ")))
        }
        return lines
    }

    private func label(of bundleID: String) -> String {
        DisplayText(appPosition(bundleID).map { apps[$0].label } ?? bundleID).description
    }

}
