import Device
import Foundation
import SharedKeychain
import Synchronization

/// The protected-data notifications of a simulated device, as UIKit gives them to an app:
/// `isProtectedDataAvailable`, and observers of ``ProtectedDataEvent``s. A run changes the
/// device's lock through ``perform(_:)``, which posts the event the change makes and runs the
/// observers of it there and then, in the order they were added, as UIKit posts on the main
/// thread; an observer runs once.
public final class ProtectedDataCenter: Sendable {
    /// What an observer does when its event is posted.
    public typealias Observer = @Sendable (ProtectedDataNotification) throws -> Void

    /// The device whose lock the run changes.
    public let device: any DeviceControl
    private let observers = Mutex<[(event: ProtectedDataEvent, run: Observer)]>([])

    /// The notifications of `device`.
    public init(device: any DeviceControl) {
        self.device = device
    }

    /// `UIApplication.isProtectedDataAvailable` now.
    public func isProtectedDataAvailable() throws -> Bool {
        try device.lockState().isProtectedDataAvailable
    }

    /// Runs `observer` the next time `event` is posted.
    public func observeOnce(_ event: ProtectedDataEvent, _ observer: @escaping Observer) {
        observers.withLock { $0.append((event, observer)) }
    }

    /// Does `action` to the device, then posts the event its change of lock makes (if any) to
    /// the observers of that event. Returns what the device did and the posted notification.
    /// An observer that throws stops the rest and the error is rethrown; the device's change
    /// stands.
    @discardableResult
    public func perform(_ action: DeviceAction) throws -> (done: String, posted: ProtectedDataNotification?) {
        let before = try device.lockState()
        let done = try device.perform(action)
        let after = try device.lockState()
        guard let event = ProtectedDataEvent(from: before, to: after) else { return (done, nil) }
        let notification = ProtectedDataNotification(event: event, time: Date(), state: after)
        let due = observers.withLock { observers in
            let due = observers.filter { $0.event == event }
            observers.removeAll { $0.event == event }
            return due
        }
        for observer in due { try observer.run(notification) }
        return (done, notification)
    }
}
