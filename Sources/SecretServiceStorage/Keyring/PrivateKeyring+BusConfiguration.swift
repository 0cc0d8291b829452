import Foundation

extension PrivateKeyring {
    /// The private bus's configuration (`bus.conf`).
    func busConfiguration() -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <!-- A private session bus for the shared-keychain keyring. It activates nothing: a bus
             that could start gnome-keyring on demand might start one on the user's own keyring. -->
        <busconfig>
          <type>session</type>
          <keep_umask/>
          <listen>unix:path=\(Self.xmlEscaped(socketPath))</listen>
          <auth>EXTERNAL</auth>
          <servicedir>\(Self.xmlEscaped(servicesDirectory.path))</servicedir>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
          <!-- The limits of the standard session bus (dbus-daemon's built-in ones are a system
               bus's: 128 pending replies per connection fails libsecret's per-item loading of
               any search with more results). -->
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_incoming_unix_fds">250000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_outgoing_unix_fds">250000000</limit>
          <limit name="max_message_size">1000000000</limit>
          <limit name="auth_timeout">240000</limit>
          <limit name="pending_fd_timeout">150000</limit>
          <limit name="max_completed_connections">100000</limit>
          <limit name="max_incomplete_connections">10000</limit>
          <limit name="max_connections_per_user">100000</limit>
          <limit name="max_names_per_connection">50000</limit>
          <limit name="max_match_rules_per_connection">50000</limit>
          <limit name="max_replies_per_connection">50000</limit>
        </busconfig>

        """
    }

    private static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
