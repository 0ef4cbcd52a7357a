/** PROFILE: the profile modal, opened from a message sender (and anywhere a person is named). */
export { ProfileModal, type ProfileTarget, UserProfileSections } from './ProfileModal';
